import { z } from "zod";

/** Names of the admission gates, cheapest first (the default order of `admission.gates`). */
export const ADMISSION_GATE_NAMES = [
  "static",
  "executable",
  "deterministic",
  "oracle",
  "negative-controls",
  "scorer-contract",
  "hint",
  "levels",
  "novelty",
  "decontamination",
  "self-review",
  "calibration",
] as const;

/** One admission gate name. */
export type AdmissionGateName = (typeof ADMISSION_GATE_NAMES)[number];

/**
 * The whole configuration of an `envforge run`, validated by zod. Every key has
 * a default, so `{}` is a complete config; a config file (JSON) and CLI flags
 * override keys. Unknown keys are errors.
 */
export const ConfigSchema = z
  .object({
    /**
     * Self-play rounds to run; each ends with one optimiser step of the shared policy, so the
     * default trains two steps (the quick start's main job). CLI `--rounds`. @default 2
     */
    rounds: z.number().int().min(1).max(100_000).default(2),
    /**
     * Run directory: `envforge.db` and `report.json` live here. CLI `--out`.
     * null = a new `runs/run-<UTC timestamp>` (or, with `--resume`, the newest folder in `runs/`). @default null
     */
    out: z.string().min(1).nullable().default(null),
    /** Master seed for sampling environments, corpus documents and episode seeds. CLI `--seed`. @default 0 */
    seed: z.number().int().min(0).default(0),
    /** Plays per environment per hint condition, for Solver episodes and calibration (SPADE uses 16; 4 keeps the laptop quick start short while most Solver groups still differ in reward). CLI `--plays`. @default 4 */
    plays: z.number().int().min(1).max(1024).default(4),
    model: z
      .object({
        /** `embedded`, a `.gguf` path, an `hf:` URI, or an OpenAI-compatible URL (`http://host:8000/v1#model`). CLI `--model`. @default "embedded" */
        spec: z.string().min(1).default("embedded"),
        /** Context window of embedded models, tokens. @default 4096 */
        contextSize: z.number().int().min(512).max(131_072).default(4096),
        /** CPU threads of embedded models; 0 = one per available core. @default 0 */
        threads: z.number().int().min(0).max(512).default(0),
        /**
         * Sequences of the embedded llama.cpp context: generations sampled at once, evaluated in shared
         * batches (each sequence holds its own `contextSize` of KV cache); 0 = `solver.concurrency`. @default 0
         */
        sequences: z.number().int().min(0).max(64).default(0),
        /**
         * Candidates when the embedded engine samples for training (`trainer.sampler` "engine"): the k most likely
         * tokens, renormalised (the stored logprobs are of that distribution, and the off-policy correction weighs
         * against it); 0 = the full vocabulary, whose per-token probability costs node-llama-cpp a sort of every
         * candidate (262,144 on Gemma 3): about 1.8x slower per token on 2 cores. At 1000 the engine–trainer KL
         * estimate measured 0.068 before and 0.015 after a step and its sync, nats/token (full vocabulary 0.016 and
         * −0.010; k = 64 0.135 and 0.100; docs/benchmarks.md). A k at or above the model's vocabulary size is the
         * full vocabulary. @default 1000
         */
        samplingTopK: z.number().int().min(0).max(1_000_000).default(1000),
        /** Request timeout of remote models, milliseconds. @default 120000 */
        timeoutMs: z.number().int().min(1000).default(120_000),
      })
      .strict()
      .prefault({}),
    solver: z
      .object({
        /**
         * Environments sampled from memory per round. The quick-start value keeps a Solver step within
         * minutes while the policy samples on the CPU through the reference trainer. @default 1
         */
        environments: z.number().int().min(1).max(100_000).default(1),
        /** Cap on turns per episode, on top of each environment's maxTurns. @default 3 */
        maxTurns: z.number().int().min(1).max(200).default(3),
        /** New tokens per Solver action (with `format: "answer"` the reasoning counts too: give it 256 or more). @default 24 */
        maxTokens: z.number().int().min(1).max(8192).default(24),
        /**
         * How the Solver replies. `action`: the reply is the action (SPADE; short, for the quick start's small
         * model). `answer`: the Solver thinks step by step, then puts its action in `<answer>…</answer>`
         * (the agent format of RAGEN and VAGEN; the same extraction as `envforge eval`'s questions: the last
         * `<answer>`, else `\boxed{}`); the environment receives only that, and a reply without one is an
         * empty (invalid) action. The whole reply is the trajectory that trains. @default "action"
         */
        format: z.enum(["action", "answer"]).default("action"),
        /** Solver sampling temperature. @default 0.7 */
        temperature: z.number().min(0).max(2).default(0.7),
        /**
         * How the Solver phase picks environments: `uniform` over memory, or `frontier` (each lineage's
         * current frontier generation, advanced by the frontier scheduler; see `evolution.frontier`). @default "uniform"
         */
        sampling: z.enum(["uniform", "frontier"]).default("uniform"),
        /**
         * Solver episodes in flight at once (the Solver phase, calibration plays and admission's
         * calibration gate, evolution and frontier rollouts), each in its own sandbox session. Seeds and
         * stored order do not depend on completion order. On the embedded engine each episode samples on
         * its own sequence of one llama.cpp context (`model.sequences`). On 2 cores 1, 2, 4 and 8 sampled at
         * the same speed within noise (one sequence already keeps both cores busy; docs/benchmarks.md); more cores,
         * a GPU or a server gain from more. @default 2
         */
        concurrency: z.number().int().min(1).max(256).default(2),
      })
      .strict()
      .prefault({}),
    levels: z
      .object({
        /**
         * How the Solver phase picks each episode's level in a levelled family (manifest `levels`).
         * `adaptive`: RLVE's controller, a window `[l, h]` per environment, levels sampled uniformly in it, `h`
         * raised once the accuracy at `h` reaches `accuracyThreshold` over `minSamples` episodes without the hint;
         * `static`: every episode at the family's `difficulty.staticLevel` (its size before levels; 0 when none).
         * @default "adaptive"
         */
        controller: z.enum(["adaptive", "static"]).default("adaptive"),
        /** τ_acc (RLVE): accuracy at the window's top level that raises it. @default 0.9 */
        accuracyThreshold: z.number().gt(0).max(1).default(0.9),
        /**
         * Episodes without the hint at the top level before the controller decides (RLVE's minimum number of
         * samples; envforge's laptop default: 8 is two rounds of the quick start's 4 plays). @default 8
         */
        minSamples: z.number().int().min(1).max(100_000).default(8),
        /** d (RLVE): most levels in an environment's window; the lowest level leaves as a new one enters. @default 4 */
        window: z.number().int().min(1).max(64).default(4),
      })
      .strict()
      .prefault({}),
    designer: z
      .object({
        /** Designer completions per round. CLI `--designs`. @default 2 */
        designs: z.number().int().min(0).max(100_000).default(2),
        /**
         * Designs that share one prompt (G, SPADE): designs g·G … g·G + G − 1 of a round get the same corpus
         * documents and memory examples, so their rewards form one Designer group (`advantages.designerGroupBy:
         * "prompt"`); with G = 1 every design is alone in its group and the Designer gets no advantage. @default 2
         */
        samplesPerPrompt: z.number().int().min(1).max(1024).default(2),
        /** Corpus documents shown per Designer prompt (k). @default 2 */
        corpusDocuments: z.number().int().min(0).max(32).default(2),
        /** Environments from memory shown per prompt, highest designer reward first (m). @default 1 */
        memoryExamples: z.number().int().min(0).max(8).default(1),
        /**
         * New tokens per design attempt. A scaffolded design (`designer.format: "scaffold"`) takes 250–400 tokens
         * from Qwen2.5-Coder-1.5B; the bound also caps what a looping small model costs (about 60 s at 8 tokens/s).
         * The free-form `class` format needs 1536 or more. @default 512
         */
        maxTokens: z.number().int().min(64).max(32_768).default(512),
        /** Designer sampling temperature. @default 0.8 */
        temperature: z.number().min(0).max(2).default(0.8),
        /**
         * Reply format the Designer is asked for: `scaffold` (one Python block with `generate`, `render`, `solve`
         * and the manifest as constants; envforge supplies the class and the oracle) or `class` (manifest JSON,
         * a free-form `env.py` class and `oracle.py`). The parser accepts both whatever is asked. @default "scaffold"
         */
        format: z.enum(["scaffold", "class"]).default("scaffold"),
        /**
         * Strength (0–1) of the repetition penalty on Designer samples (the DRY sampler on the embedded llama.cpp
         * engine; ignored by other providers): small coder models otherwise loop on repeated lines until the token
         * bound. 0 turns it off. @default 0
         */
        repetitionPenalty: z.number().min(0).max(1).default(0),
        /**
         * Constrain scaffolded Designer replies with the scaffold grammar (`SCAFFOLD_GRAMMAR`, GBNF): the fences,
         * the manifest constants and `generate`/`render`/`solve` cannot be left out. Enforced by the embedded
         * llama.cpp engine (directly or as the engine sampler); other providers ignore it; not used with `format`
         * "class". Measured on `envforge bench designer` (docs/benchmarks.md, "Designer yield"): with it
         * Qwen2.5-Coder-0.5B's first attempts all parse (4 of 6 without) and Gemma 3 270M's replies parse at all.
         * @default true
         */
        grammar: z.boolean().default(true),
        /**
         * Repair turns per design: the first failing verdict (reason, message, evidence) goes back to the Designer
         * as the next user message, up to this many times; the whole conversation is the Designer's trajectory and
         * the final verdict gives its reward. 0 = one attempt. @default 2
         */
        repairTurns: z.number().int().min(0).max(16).default(2),
        /**
         * How a repair turn is asked: `conversation` (the attempt, then the verdict as the next user message: the
         * Designer edits its own reply) or `restart` (the original prompt again, the verdict appended as a note: a
         * fresh attempt that knows the error; small models shown their own reply mostly copy it). An attempt cut
         * off at `maxTokens` is always restarted. @default "conversation"
         */
        repairMode: z.enum(["conversation", "restart"]).default("conversation"),
        /** Superseded by `admission.probeSeeds` and `admission.seeds`; still accepted and ignored. @deprecated @default 3 */
        admissionSeeds: z.number().int().min(1).max(64).default(3),
      })
      .strict()
      .prefault({}),
    reward: z
      .object({
        /** Regret normaliser: regret_norm = min(regret / scale, 1) (SPADE). @default 0.15 */
        regretScale: z.number().positive().default(0.15),
        /** Weight of regret_norm in the Designer reward. @default 0.4 */
        regretWeight: z.number().min(0).default(0.4),
        /** Weight of the difficulty anchor in the Designer reward. @default 0.6 */
        anchorWeight: z.number().min(0).default(0.6),
        /** Lower edge of the anchor's flat top (no-hint win rate). @default 0.4 */
        anchorLow: z.number().min(0).max(1).default(0.4),
        /** Upper edge of the anchor's flat top. @default 0.6 */
        anchorHigh: z.number().min(0).max(1).default(0.6),
        /** Width of the anchor's linear decay outside the flat top. @default 0.25 */
        anchorWidth: z.number().positive().default(0.25),
        /** Designer reward of a completion that could not be parsed. @default -1 */
        unparseablePenalty: z.number().max(0).default(-1),
        /** Designer reward of a parsed design rejected by admission. @default -0.5 */
        rejectedPenalty: z.number().max(0).default(-0.5),
        /**
         * Designer reward mode: `regret-blend` (SPADE), `admission` (co-evolution), `learnability`
         * (Absolute Zero), `uncertainty` (R-Zero) or `learning-potential` (|fast − slow EMA| of the pass rate per skill). @default "regret-blend"
         */
        mode: z.enum(["regret-blend", "admission", "learnability", "uncertainty", "learning-potential"]).default("regret-blend"),
        /** Designer reward of a design rejected by semantic review or the novelty gate (`rejectedPenalty` covers mechanical gates). @default -0.5 */
        reviewRejectedPenalty: z.number().max(0).default(-0.5),
        /** `admission` mode: reward of a design that failed admission. @default -1 */
        admissionBroken: z.number().default(-1),
        /** `admission` mode: reward of an admitted design outside the calibration band. @default -0.25 */
        admissionOutsideBand: z.number().default(-0.25),
        /** `admission` mode: reward of an admitted design inside the band. @default 1 */
        admissionAdmitted: z.number().default(1),
        /** `admission` mode: exclusive lower edge of the calibration band (no-hint pass rate). @default 0 */
        admissionBandLow: z.number().min(0).max(1).default(0),
        /** `admission` mode: exclusive upper edge of the calibration band. @default 1 */
        admissionBandHigh: z.number().min(0).max(1).default(1),
        /** `learning-potential` mode: step size of the fast pass-rate EMA. @default 0.5 */
        learningPotentialFastRate: z.number().gt(0).max(1).default(0.5),
        /** `learning-potential` mode: step size of the slow pass-rate EMA. @default 0.1 */
        learningPotentialSlowRate: z.number().gt(0).max(1).default(0.1),
        /**
         * Solver reward added per invalid action (a turn whose `info` has `invalid_action: true`), after clipping
         * the return. Small, so a win outranks a clean loss up to 49 invalid actions, yet it separates the plays of
         * a group that no play wins (a learning signal for a model below an environment's frontier). @default -0.02
         */
        invalidActionPenalty: z.number().min(-1).max(0).default(-0.02),
        /** Solver reward added when the sandbox cut the episode (timeout, limits, crash), after clipping. @default 0 */
        sandboxCutPenalty: z.number().max(0).default(0),
      })
      .strict()
      .prefault({}),
    advantages: z
      .object({
        /** Divide `r − mean(group)` by the group's standard deviation plus `stdEpsilon`. @default false */
        scaleByStd: z.boolean().default(false),
        /** Epsilon added to the group standard deviation when scaling. @default 1e-6 */
        stdEpsilon: z.number().positive().default(1e-6),
        /** Designer groups: designs answering one `prompt`, or designs of one `skill` group. @default "prompt" */
        designerGroupBy: z.enum(["prompt", "skill"]).default("prompt"),
        /** Cap on the Designer loss weight (kept Solver samples / kept Designer samples) (SPADE). @default 50 */
        designerWeightCap: z.number().min(1).default(50),
        /** Cap C of the truncated importance weight min(π_old/π_sample, C) (SPADE). @default 2 */
        importanceCap: z.number().positive().default(2),
        /** Trainer loss: `ppo` or `importance_sampling`. @default "ppo" */
        lossKind: z.enum(["ppo", "importance_sampling"]).default("ppo"),
        /** Lower PPO clip threshold ε_low (SPADE). @default 0.2 */
        clipLow: z.number().min(0).max(1).default(0.2),
        /** Upper PPO clip threshold ε_high (SPADE). @default 0.28 */
        clipHigh: z.number().min(0).default(0.28),
      })
      .strict()
      .prefault({}),
    corpus: z
      .object({
        /** A `.jsonl` file (`{"id","text"}` per line) or a folder of `.txt`/`.md` files; null = the shipped sample corpus. @default null */
        path: z.string().nullable().default(null),
      })
      .strict()
      .prefault({}),
    sandbox: z
      .object({
        /**
         * Sandbox backend: `bwrap` (bubblewrap jails), `process` (no namespaces; needs `trustedCode`), or
         * `remote` (every session on one of the `envforge serve` servers in `remote.urls`, in their jails with
         * their own sandbox limits; the limits below then apply on those servers, not here). @default "bwrap"
         */
        backend: z.enum(["bwrap", "process", "remote"]).default("bwrap"),
        /** States that environment code is trusted; required by the `process` backend. @default false */
        trustedCode: z.boolean().default(false),
        /** Wall-clock limit per environment call, milliseconds. @default 10000 */
        callTimeoutMs: z.number().int().min(100).max(600_000).default(10_000),
        /** Address-space limit per episode process, MiB. @default 1024 */
        memoryMb: z.number().int().min(64).max(65_536).default(1024),
        /** CPU-time limit per episode, seconds (hard limit one second more). @default 30 */
        cpuSeconds: z.number().int().min(1).max(3600).default(30),
        /** Jails (zygote processes) running episodes in parallel. @default 1 */
        workers: z.number().int().min(1).max(64).default(1),
        /** A jail is replaced by a fresh one after this many episodes. @default 1000 */
        recycleAfterEpisodes: z.number().int().min(1).default(1000),
        /** Memory of a whole jail (zygote, spares, live episodes, its /tmp) in its cgroup, MiB; used where cgroups can be created. @default 4096 */
        jailMemoryMb: z.number().int().min(64).max(1_048_576).default(4096),
        /** Processes and threads in one jail at once, in its cgroup. @default 256 */
        jailPids: z.number().int().min(16).max(65_536).default(256),
        /** CPU of one jail in cores (a CFS quota in its cgroup); 0 = no CPU limit. @default 0 */
        jailCpus: z.number().min(0).max(1024).default(0),
        /** The servers of the `remote` backend (ignored by the others). */
        remote: z
          .object({
            /**
             * Roots of `envforge serve` servers (`http://host:port` or `https://…`); sessions go to the one with
             * the fewest of this process's sessions in flight. Required (at least one) when `backend` is `remote`. @default []
             */
            urls: z.array(z.string().regex(/^https?:\/\/[^\s/?#]+\/?$/, "a server root such as http://10.0.0.5:8000")).default([]),
            /** Environment variable holding the bearer token sent to every server (unset or empty = none). @default "ENVFORGE_SERVE_TOKEN" */
            tokenEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default("ENVFORGE_SERVE_TOKEN"),
            /** Limit of one connect and WebSocket handshake to a server, milliseconds. @default 5000 */
            connectTimeoutMs: z.number().int().min(100).max(600_000).default(5000),
            /** Ping interval of each session's connection; a server that misses a whole interval is taken for dead, milliseconds. @default 5000 */
            heartbeatMs: z.number().int().min(100).max(600_000).default(5000),
            /** A server that failed (refused, unreachable, dropped a session) is skipped for this long, milliseconds. @default 30000 */
            cooldownMs: z.number().int().min(0).max(86_400_000).default(30_000),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .refine((sandbox) => sandbox.backend !== "remote" || sandbox.remote.urls.length > 0, {
        message: "the remote backend needs at least one server URL in sandbox.remote.urls",
        path: ["remote", "urls"],
      })
      .prefault({}),
    serve: z
      .object({
        /**
         * Address `envforge serve` binds. Loopback by default; any other address needs a bearer token
         * (`tokenEnv`) or the server refuses to start. CLI `--host`. @default "127.0.0.1"
         */
        host: z.string().min(1).default("127.0.0.1"),
        /** TCP port; 0 = any free port (printed at start). CLI `--port`. @default 8000 */
        port: z.number().int().min(0).max(65_535).default(8000),
        /**
         * Environment variable holding the accepted bearer tokens (comma-separated). Set, every request
         * must carry one (`Authorization: Bearer <token>`, or HTTP Basic with the token as password, which
         * OpenEnv clients send for a `http://user:<token>@host` URL); rate limits count per token. CLI `--token-env`.
         * @default "ENVFORGE_SERVE_TOKEN"
         */
        tokenEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default("ENVFORGE_SERVE_TOKEN"),
        /** Concurrent sessions (WebSocket and HTTP episodes); one more is refused with `CAPACITY_REACHED`. CLI `--capacity`. @default 1024 */
        capacity: z.number().int().min(1).max(100_000).default(1024),
        /** Sessions per jail: the server starts `ceil(capacity / sessionsPerJail)` jails (at least `sandbox.workers`). @default 128 */
        sessionsPerJail: z.number().int().min(1).max(4096).default(128),
        /** A session without a message for this long is closed (`session_expired`), milliseconds. @default 900000 */
        idleTimeoutMs: z.number().int().min(100).max(86_400_000).default(900_000),
        /** WebSocket ping interval, milliseconds; a connection that misses a whole interval's pong is dropped. @default 20000 */
        pingIntervalMs: z.number().int().min(50).max(3_600_000).default(20_000),
        /** Largest action (`message`), bytes of UTF-8; larger is `VALIDATION_ERROR` / HTTP 422 and the session lives on. @default 1048576 */
        maxActionBytes: z.number().int().min(16).max(64 * 1024 * 1024).default(1024 * 1024),
        /** Largest WebSocket frame, bytes; a larger one closes the connection (code 1009). @default 16777216 */
        maxFrameBytes: z.number().int().min(1024).max(256 * 1024 * 1024).default(16 * 1024 * 1024),
        /** Largest HTTP request body, bytes; larger is HTTP 413. @default 16777216 */
        maxBodyBytes: z.number().int().min(1024).max(256 * 1024 * 1024).default(16 * 1024 * 1024),
        /** Bytes queued for a client that does not read before its connection is dropped. @default 33554432 */
        maxBufferedBytes: z.number().int().min(1024).default(32 * 1024 * 1024),
        /** Time a client has to send its request headers, milliseconds (slow clients are cut off). @default 10000 */
        headersTimeoutMs: z.number().int().min(100).max(600_000).default(10_000),
        /** Time a client has to send a whole HTTP request, milliseconds. @default 60000 */
        requestTimeoutMs: z.number().int().min(100).max(3_600_000).default(60_000),
        /** Requests (HTTP requests and WebSocket frames) per second per token (per address without tokens). @default 5000 */
        rateLimitPerSecond: z.number().positive().default(5000),
        /** Burst of the rate limit: requests allowed at once after an idle spell. @default 10000 */
        rateLimitBurst: z.number().int().min(1).default(10_000),
        /** Whole episodes per `POST /v1/episodes` or answers per `POST /v1/verify` request. @default 1024 */
        maxEpisodesPerRequest: z.number().int().min(1).max(100_000).default(1024),
        /** Episodes of one batch request played at the same time. @default 32 */
        batchConcurrency: z.number().int().min(1).max(4096).default(32),
        /** After SIGTERM, time running episodes get to finish before every session is closed, milliseconds. @default 30000 */
        drainTimeoutMs: z.number().int().min(0).max(3_600_000).default(30_000),
        /**
         * Serve the sandbox-worker WebSocket `/v1/sandbox`, which runs environment programs sent inline by
         * clients (the `remote` sandbox backend of other envforge processes), in this server's jails with
         * this server's `sandbox` limits, behind the same token, rate and frame limits and session slots.
         * Any client that may connect can then run code in the jails; false refuses the route
         * (`not_supported`). @default true
         */
        acceptPrograms: z.boolean().default(true),
      })
      .strict()
      .prefault({}),
    admission: z
      .object({
        /**
         * Gates to run, in order (cheapest first); the pipeline stops at the first reject. Names: `static`,
         * `executable`, `deterministic`, `oracle`, `negative-controls`, `scorer-contract`, `hint`, `levels`,
         * `novelty`, `decontamination`, `self-review`, `calibration`. In a levelled family `executable` …
         * `hint` check every declared level, and `levels` checks that the levels differ and grow harder.
         * @default all twelve, in that order
         */
        gates: z.array(z.enum(ADMISSION_GATE_NAMES)).min(1).default([...ADMISSION_GATE_NAMES]),
        /** Gates to leave out of `gates` (CLI `envforge admit --skip`). @default [] */
        skip: z.array(z.enum(ADMISSION_GATE_NAMES)).default([]),
        /** Candidates admitted at the same time; 0 = one per CPU core (the sandbox's worker count). @default 0 */
        concurrency: z.number().int().min(0).max(256).default(0),
        /** Episode seeds of the executable gate's probes (0..n−1). @default 3 */
        probeSeeds: z.number().int().min(1).max(64).default(3),
        /** Episode seeds of the deterministic, oracle, negative-control, scorer-contract and hint gates (0..n−1). @default 8 */
        seeds: z.number().int().min(2).max(64).default(8),
        /**
         * The highest share of its episodes a seeded random agent may win in a sound task (the negative-controls
         * gate's null hypothesis): it plays `seeds` plus 8 spread seeds, and the task is rejected as
         * `random_agent_passes` when that many wins or more would have probability below `controlAlpha` at this
         * rate (a one-sided exact binomial test). A yes/no task with a few tries is won at chance this often;
         * a task that takes any integer is won in about 45 % of episodes. @default 0.05
         */
        randomWinRate: z.number().min(0).lt(1).default(0.05),
        /** Significance level of the random agent's binomial test (`randomWinRate`). @default 0.05 */
        controlAlpha: z.number().gt(0).lt(1).default(0.05),
        /**
         * Relative drop of the off-policy difficulty D (oracle turns × first-observation characters, mean over
         * the gate seeds) from one level to the next that the levels gate still accepts as noise: D is a proxy, and
         * a single-turn family's prompt length varies with the instance (7 of 80 RLVE environments drop 5–11 %
         * between levels whose parameters grow; docs/benchmarks.md, "RLVE"). @default 0.15
         */
        levelTolerance: z.number().min(0).max(1).default(0.15),
        /** Largest `env.py`, characters (static gate). @default 65536 */
        maxEnvChars: z.number().int().min(100).default(65_536),
        /** Largest `oracle.py`, characters (static gate). @default 32768 */
        maxOracleChars: z.number().int().min(20).default(32_768),
        /** Shortest hint, characters (hint gate). @default 20 */
        hintMinChars: z.number().int().min(1).default(20),
        /** Longest hint, characters (hint gate). @default 1000 */
        hintMaxChars: z.number().int().min(1).max(2000).default(1000),
        /** Text novelty: reject when the MinHash Jaccard with a pool environment reaches this. @default 0.8 */
        textSimilarity: z.number().gt(0).max(1).default(0.8),
        /** Behaviour novelty: reject when the probe-trace Jaccard with a pool environment reaches this. @default 0.8 */
        behaviourSimilarity: z.number().gt(0).max(1).default(0.8),
        /** User-supplied benchmark texts for decontamination: a `.jsonl` (`{"id","text"}`) or a folder of `.txt`/`.md`; null = none. @default null */
        benchmarkPath: z.string().min(1).nullable().default(null),
        /** Word n-gram length of the decontamination overlap. @default 13 */
        contaminationNgram: z.number().int().min(4).max(64).default(13),
        /** Independent self-reviews by the model (EvoEnv K). @default 3 */
        reviews: z.number().int().min(1).max(16).default(3),
        /**
         * Rejecting reviews that reject the candidate: 1 = any reject rejects (EvoEnv); 2 of 3 = a majority, for a
         * small model whose reviews are noisy (a Qwen2.5-Coder-1.5B design "sum of 4–7 numbers", a sound task, was
         * rejected by one of its three reviews, which faulted the description for not saying what it says). Above `reviews` nothing is rejected by review
         * (the gate still needs one parseable review). @default 1
         */
        reviewRejections: z.number().int().min(1).max(16).default(1),
        /** Rubric file of the self-review (Markdown); null = the shipped `rubrics/self-review.md`. @default null */
        rubricPath: z.string().min(1).nullable().default(null),
        /** New tokens per review. @default 256 */
        reviewMaxTokens: z.number().int().min(16).max(8192).default(256),
        /**
         * Constrain review replies with \`REVIEW_GRAMMAR\` (GBNF: short lines, then \`VERDICT: ACCEPT|REJECT\`) where the
         * provider enforces grammars (the embedded llama.cpp engine, vLLM, SGLang); others ignore it. Without it
         * Qwen2.5-Coder-0.5B's reviews often hold no verdict line. @default true
         */
        reviewGrammar: z.boolean().default(true),
        /** Review sampling temperature. @default 0.7 */
        reviewTemperature: z.number().min(0).max(2).default(0.7),
        /** Calibration plays by the Solver without the hint (EvoEnv m). @default 8 */
        calibrationPlays: z.number().int().min(1).max(1024).default(8),
        /** Exclusive lower edge of the calibration band (Solver pass rate). @default 0 */
        bandLow: z.number().min(0).max(1).default(0),
        /** Exclusive upper edge of the calibration band. @default 1 */
        bandHigh: z.number().min(0).max(1).default(1),
        /** Extra plays when the first estimate lies within `edgeMargin` of a band edge; 0 = no second stage. @default 8 */
        secondStagePlays: z.number().int().min(0).max(1024).default(8),
        /** Distance from a band edge that triggers the second stage (pass-rate units). @default 0.125 */
        edgeMargin: z.number().min(0).max(0.5).default(0.125),
      })
      .strict()
      .prefault({}),
    evolution: z
      .object({
        /** Generations per seed (G). CLI `evolve --generations`. @default 15 */
        generations: z.number().int().min(1).max(1000).default(15),
        /** Direction of every generation, or `mixed` (a different direction than the parent's, at random). CLI `--direction`. @default "mixed" */
        direction: z.enum(["length", "scenario", "skill", "level", "mixed"]).default("mixed"),
        /** Effort: `low` one scenario–skill pair, `high` a contiguous span, `max` unbounded. CLI `--effort`. @default "high" */
        effort: z.enum(["low", "high", "max"]).default("high"),
        /** Proposer/reviewer rounds of the planning loop. @default 3 */
        planningRounds: z.number().int().min(1).max(50).default(3),
        /** Modifier rounds of the modification loop. @default 3 */
        modificationRounds: z.number().int().min(1).max(50).default(3),
        /** Attempts (planning + modification + admission) at one generation before its lineage stops. @default 2 */
        attemptsPerGeneration: z.number().int().min(1).max(100).default(2),
        /** Lineages evolved at the same time. @default 2 */
        parallelSeeds: z.number().int().min(1).max(64).default(2),
        /** Episode seeds (0..n−1) of the Modifier's oracle and negative-controls validations (the admission gates of those names). @default 3 */
        validationSeeds: z.number().int().min(1).max(64).default(3),
        /** Laplace smoothing α of the reference frequencies p(σ), p(κ|σ). @default 1 */
        smoothing: z.number().positive().default(1),
        /** Reference distributions of the difficulty: smoothed `frequency` over pool and corpus, or `model` (ask the model; frequencies where it gives no probability). @default "frequency" */
        reference: z.enum(["frequency", "model"]).default("frequency"),
        /** Rubric file (Markdown, `## Plan` / `## Child` bullets); null = the shipped `rubrics/evolution.md`. CLI `--rubrics`. @default null */
        rubrics: z.string().min(1).nullable().default(null),
        /** New tokens per sequence extraction. @default 384 */
        sequenceMaxTokens: z.number().int().min(16).max(8192).default(384),
        /** New tokens per Proposer plan for the model's own text (summary, changed steps); the parent's steps, which the plan repeats, are added on top (`planTokenBound`). @default 512 */
        planMaxTokens: z.number().int().min(16).max(8192).default(512),
        /** New tokens per review. @default 256 */
        reviewMaxTokens: z.number().int().min(16).max(8192).default(256),
        /** New tokens per Modifier reply. @default 2048 */
        modifierMaxTokens: z.number().int().min(64).max(32_768).default(2048),
        /** The change form the Modifier is asked for: `search-replace` blocks only (with a worked block), or `any` of blocks, unified diffs and full files. Every form is parsed either way. @default "search-replace" */
        modifierForm: z.enum(["search-replace", "any"]).default("search-replace"),
        /** Constrain Proposer plans (`planGrammar`: the plan's JSON object, the steps the direction keeps written in), rubric reviews (`reviewGrammar`: one reasoned check per rubric; the verdict is computed from the checks) and `search-replace` Modifier replies (`MODIFIER_GRAMMAR`: one to four blocks of 1–12 SEARCH lines and up to 40 REPLACE lines, then an optional JSON block) with GBNF grammars where the provider enforces them (embedded llama.cpp, vLLM, SGLang). @default true */
        grammar: z.boolean().default(true),
        /** Sampling temperature of the evolution roles. @default 0.7 */
        temperature: z.number().min(0).max(2).default(0.7),
        funnel: z
          .object({
            /** Run the seed funnel before evolving (drop seeds the Solver masters or that are too short). CLI `--funnel`. @default false */
            enabled: z.boolean().default(false),
            /** Solver rollouts per candidate seed. @default 8 */
            rollouts: z.number().int().min(1).max(1024).default(8),
            /** Highest pass rate of a kept seed (4/8 in the source). @default 0.5 */
            maxPassRate: z.number().min(0).max(1).default(0.5),
            /** Lowest mean turns of a kept seed (30 in the source; lower it for single-turn tasks). @default 30 */
            minMeanTurns: z.number().min(0).default(30),
          })
          .strict()
          .prefault({}),
        frontier: z
          .object({
            /** Rollouts per frontier probe (8 in the source). @default 8 */
            rollouts: z.number().int().min(1).max(1024).default(8),
            /** Wins out of `rollouts` that release the next generation (6/8 in the source). @default 6 */
            releaseWins: z.number().int().min(1).max(1024).default(6),
            /** Evolution directory (`envforge evolve --out`) whose lineages `envforge run` imports for `solver.sampling: "frontier"`; null = none. @default null */
            lineagesFrom: z.string().min(1).nullable().default(null),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    trainer: z
      .object({
        /**
         * Training backend: `noop` computes nothing; `reference` starts the CPU reference trainer
         * (`trainer/`, Tinker API) on the embedded model; `tinker` speaks the Tinker API at `trainer.url`
         * (hosted Tinker, SkyRL's Tinker server, or a reference trainer started with `envforge trainer up`).
         * With `reference` and `tinker` the Solver and the Designer sample from the trained policy through
         * the trainer's sampler (the model named by `model.spec` is then not loaded).
         * @default "reference"
         */
        backend: z.enum(["noop", "reference", "tinker"]).default("reference"),
        /**
         * Model the `reference` trainer loads: null = the run's GGUF model (`model.spec` embedded or a `.gguf`
         * path); else a `.gguf` file, a Hugging Face model folder, or `tiny-random` (tests only). @default null
         */
        model: z.string().min(1).nullable().default(null),
        /** Server root of the `tinker` backend, e.g. `http://127.0.0.1:8765`. @default null */
        url: z.string().url().nullable().default(null),
        /** Environment variable that holds the Tinker API key (none sent when unset). @default "TINKER_API_KEY" */
        apiKeyEnv: z.string().min(1).default("TINKER_API_KEY"),
        /** Base model name on the backend; null = the first model the backend lists. @default null */
        baseModel: z.string().min(1).nullable().default(null),
        /**
         * Local Hugging Face tokenizer folder of the base model (`tokenizer.json`, `tokenizer_config.json`, and the chat
         * template in `chat_template.jinja` or the config's `chat_template` key), a path as given (relative to the working
         * directory). When set, the policy's chat messages are tokenised and its samples decoded here instead of through
         * the server's `/envforge/v1/` tokenizer routes, which hosted Tinker and SkyRL's Tinker server do not have.
         * null = the server's routes (the reference trainer has them). @default null
         */
        tokenizer: z.string().min(1).nullable().default(null),
        /** LoRA rank of the trained adapter. @default 8 */
        loraRank: z.number().int().min(1).max(256).default(8),
        /** Port of the `reference` trainer on 127.0.0.1; a port another process holds is replaced by a free one. @default 8765 */
        port: z.number().int().min(1).max(65_535).default(8765),
        /**
         * Adam learning rate. The trainer trains a LoRA adapter, whose rate is about 10x a full fine-tune's
         * (Schulman et al., "LoRA Without Regret", Thinking Machines 2025; the Tinker cookbook's `get_lr`). @default 0.0001
         */
        learningRate: z.number().positive().default(1e-4),
        /** Adam β1. @default 0.9 */
        beta1: z.number().min(0).lt(1).default(0.9),
        /** Adam β2. @default 0.95 */
        beta2: z.number().min(0).lt(1).default(0.95),
        /** Adam ε. @default 1e-8 */
        epsilon: z.number().positive().default(1e-8),
        /** Save adapter and optimiser state every N training steps (and after the last). @default 1 */
        checkpointEvery: z.number().int().min(1).default(1),
        /** Timeout of one HTTP request to the trainer, milliseconds. @default 60000 */
        requestTimeoutMs: z.number().int().min(1000).default(60_000),
        /**
         * Where the policy samples with `backend` "reference" on a GGUF model (`model.spec` embedded or a `.gguf`
         * path, or a `.gguf` `trainer.model`): `engine` samples on the embedded llama.cpp engine, which loads the
         * trainer's LoRA adapter whenever the policy version changes (weight sync, the run's `adapters/` folder);
         * `trainer` samples inside the reference trainer (transformers on the CPU, slower). Other backends and
         * models always sample on the trainer. The engine's logprobs are those of the distribution it sampled from
         * (tempered, penalised, quantised), so at each step the trainer recomputes every datum's logprobs and the
         * ratio π_trainer/π_engine, truncated at the importance cap, is folded into the advantages (the
         * training–inference mismatch correction); the round report's `trainer.samplerMismatch` gives the KL
         * estimate, the largest ratio and the truncated fraction. @default "engine"
         */
        sampler: z.enum(["engine", "trainer"]).default("engine"),
        /**
         * Sync check at the start of a run with `sampler` "engine": the mean absolute difference, nats per token,
         * allowed between the engine's and the trainer's logprobs of the logprob probe (with the trainer's
         * adapter loaded); a larger one fails the run. null skips the check. @default 0.25
         */
        syncCheckTolerance: z.number().positive().nullable().default(0.25),
        /**
         * The engine the policy samples on with `sampler` "engine". `embedded` (the default) is the llama.cpp
         * engine inside envforge, on the reference trainer's GGUF model. `vllm` and `sglang` sample on an
         * OpenAI-compatible inference server started separately on the same base model the trainer trains
         * (a Hugging Face model folder as `trainer.model`, or a reference trainer at `trainer.url` started with
         * `envforge trainer up`): after every optimiser step the trainer writes its LoRA adapter as a peft
         * folder into `adapterDir` and the server loads it at runtime (vLLM: `POST /v1/load_lora_adapter`,
         * server started with `VLLM_ALLOW_RUNTIME_LORA_UPDATING=True` and `--enable-lora --max-lora-rank R`;
         * SGLang: `POST /load_lora_adapter`, `--enable-lora --max-lora-rank R --lora-target-modules all`), and
         * every request names that adapter. A server that cannot load the adapter stops the run at start.
         */
        engine: z
          .object({
            /** `embedded` (llama.cpp in envforge), `vllm` or `sglang` (a server at `url`). @default "embedded" */
            kind: z.enum(["embedded", "vllm", "sglang"]).default("embedded"),
            /** Root URL of the vLLM or SGLang server, without `/v1`, e.g. `http://127.0.0.1:8000`; required for them. @default null */
            url: z.string().url().nullable().default(null),
            /**
             * Absolute folder the trainer writes adapter folders into and the server reads them from, at the same path
             * on both (one machine, or a shared file system mounted at the same place); required for `vllm` and `sglang`.
             * @default null
             */
            adapterDir: z.string().min(1).nullable().default(null),
            /** Prefix of the adapters' names on the server (`<prefix>-<run instance>-policy-<version>`). @default "envforge" */
            adapterName: z
              .string()
              .regex(/^[A-Za-z0-9_-]{1,64}$/, "letters, digits, '_' and '-' only")
              .default("envforge"),
            /** Timeout of one request to the server (sample, score, load, unload), milliseconds. @default 120000 */
            requestTimeoutMs: z.number().int().min(1000).default(120_000),
            /** Environment variable that holds the server's API key (vLLM `--api-key`; none sent when unset). @default "ENVFORGE_ENGINE_API_KEY" */
            apiKeyEnv: z.string().min(1).default("ENVFORGE_ENGINE_API_KEY"),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    schedule: z
      .object({
        /** The Designer generates (and its delayed update is scheduled) every k steps; the Solver updates every step (co-evolution). @default 4 */
        designerEvery: z.number().int().min(1).default(4),
        /** Steps between a Designer generation and the update on its trajectories, corrected by truncated importance sampling (SPADE). @default 1 */
        designerDelay: z.number().int().min(0).default(1),
      })
      .strict()
      .prefault({}),
    /** Held-out evaluation (`envforge eval`); every key has the CLI flag named beside it. */
    eval: z
      .object({
        /**
         * Suites: `rg` (Reasoning Gym), `heldout-seeds` (the training environments on episode seeds training never
         * used), `holdout` (the run's holdout split of its pool; needs `--run`), `envs:<folder>` (any folder of
         * packages). CLI `--suite`. @default ["rg", "heldout-seeds"]
         */
        suites: z.array(z.string().min(1)).min(1).default(["rg", "heldout-seeds"]),
        /** Reasoning Gym tasks; null = the 20 fastest (5 per SPADE bucket); `["all"]` = every task in the bucket table. CLI `--tasks`. @default null */
        tasks: z.array(z.string().min(1)).min(1).nullable().default(null),
        /** Reasoning Gym parameters: the tasks' defaults, or the paper's `hard` ones (SPADE's comparable setting). CLI `--difficulty`. @default "default" */
        difficulty: z.enum(["default", "hard"]).default("default"),
        /** Items per Reasoning Gym task. CLI `--items`. @default 2 */
        items: z.number().int().min(1).max(10_000).default(2),
        /** Episodes per held-out environment. CLI `--episodes`. @default 2 */
        episodes: z.number().int().min(1).max(10_000).default(2),
        /** Seed of the items and episode seeds (the same seed gives the same items). CLI `--seed`. @default 0 */
        seed: z.number().int().min(0).default(0),
        /** Fraction of a run's pool held out when `holdout` is evaluated and the run has no split yet (persisted; training then never samples it). CLI `--holdout`. @default 0.2 */
        holdoutFraction: z.number().min(0).lt(1).default(0.2),
        /**
         * `envforge run`: make the holdout split (`holdoutFraction`, `seed`) of the pool when a new run starts, before
         * round 1, so training never samples those environments (else the split is made by the first `envforge eval
         * --suite holdout`, and rounds run before it may have sampled them). @default false
         */
        holdoutAtStart: z.boolean().default(false),
        /** Items or episodes in flight at once (the embedded engine's sequences). CLI `--concurrency`. @default 1 */
        concurrency: z.number().int().min(1).max(64).default(1),
        /** New tokens per Reasoning Gym answer. CLI `--max-tokens`. @default 256 */
        maxTokens: z.number().int().min(1).max(32_768).default(256),
        /** Sampling temperature of answers and episodes (0 = greedy, reproducible). CLI `--temperature`. @default 0 */
        temperature: z.number().min(0).max(2).default(0),
        /** Limit of one generation, milliseconds; a model past it is that item's `model_timeout`. CLI `--timeout` (seconds). @default 120000 */
        timeoutMs: z.number().int().min(1).default(120_000),
        /** Eval store (SQLite); null = `<run>/eval.db` with `--run`, else `runs/eval.db`. CLI `--store`. @default null */
        store: z.string().min(1).nullable().default(null),
      })
      .strict()
      .prefault({}),
    /** Metrics written beside `metrics.jsonl` while a run works. */
    metrics: z
      .object({
        /**
         * TensorBoard log folder that `envforge run` rewrites after every round with the run's scalars (the same
         * event file `envforge export tensorboard --out RUN --to FOLDER` writes, under `FOLDER/<run folder name>/`);
         * needs trainer/.venv (scripts/setup.sh). A failed export is a notice, never a stop. No CLI flag: export a
         * finished run with `envforge export tensorboard`. null = no live export. @default null
         */
        tensorboard: z.string().min(1).nullable().default(null),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .refine((config) => new Set(config.admission.gates).size === config.admission.gates.length, {
    message: "admission.gates names a gate more than once",
    path: ["admission", "gates"],
  })
  .refine((config) => config.admission.gates.some((gate) => !config.admission.skip.includes(gate)), {
    message: "admission.skip leaves no gate to run; an empty pipeline would admit anything",
    path: ["admission", "skip"],
  })
  .refine((config) => config.admission.bandLow < config.admission.bandHigh, {
    message: "admission.bandLow must be below admission.bandHigh",
    path: ["admission", "bandLow"],
  })
  .refine((config) => config.evolution.frontier.releaseWins <= config.evolution.frontier.rollouts, {
    message: "evolution.frontier.releaseWins must not exceed evolution.frontier.rollouts",
    path: ["evolution", "frontier", "releaseWins"],
  })
  .refine((config) => config.reward.anchorLow <= config.reward.anchorHigh, {
    message: "reward.anchorLow must not exceed reward.anchorHigh",
    path: ["reward", "anchorLow"],
  });

/** A complete, validated configuration. */
export type Config = z.infer<typeof ConfigSchema>;
/** A partial configuration as written in a file. */
export type ConfigInput = z.input<typeof ConfigSchema>;
