/** One grounding document shown to the Designer. */
export interface CorpusDocument {
  /** Stable id, unique within a corpus. */
  readonly id: string;
  /** Plain text. */
  readonly text: string;
  /** Optional title. */
  readonly title?: string;
}
