import { NoopTrainer } from "./noop-trainer.js";
import { trainerContract } from "./trainer.contract.js";

trainerContract("NoopTrainer", async () => new NoopTrainer(), { changesPolicy: false });
