import type { Config } from "../config/index.js";
import { exportTensorBoard } from "../dashboard/index.js";

/**
 * The `afterRound` hook of `envforge run` for `metrics.tensorboard`: after every round it rewrites
 * the run's TensorBoard event file under that folder (the same file `envforge export tensorboard`
 * writes, every point so far, so nothing is duplicated). The first success and every failure are
 * passed to `notice`; a failure never stops the run. Undefined when `metrics.tensorboard` is null.
 *
 * @param outDir the run folder
 * @param notice where messages go (the progress display's notices)
 */
export function liveTensorBoardExport(config: Config, outDir: string, notice: (message: string) => void): ((round: number) => Promise<void>) | undefined {
  const logDir = config.metrics.tensorboard;
  if (logDir === null) return undefined;
  let announced = false;
  return async (round) => {
    try {
      const result = await exportTensorBoard({ runDir: outDir, logDir });
      if (!announced) notice(`TensorBoard: ${result.points} scalars in ${result.eventFile}, rewritten after every round; view: tensorboard --logdir ${logDir}`);
      announced = true;
    } catch (error) {
      notice(`TensorBoard export after round ${round} failed (the run goes on): ${(error as Error).message}`);
    }
  };
}
