"""The config of `prmkit rl grpo`: policy, rewards, process advantages, problems and GRPO's settings."""

from dataclasses import dataclass, field

from prmkit.data.settings import COUNT, LR, MAX_NEW_TOKENS, NON_NEGATIVE, SEED, TEMPERATURE, TOP_P
from prmkit.data.settings import field_help as _help
from prmkit.generate.config import DecodingConfig
from prmkit.models.loading import DEFAULT_MODEL
from prmkit.models.scorer import SCORERS
from prmkit.rl.advantages import describe_credit
from prmkit.train.config import TrainRunConfig

__all__ = ["SETTINGS", "RLConfig"]

SETTINGS = "settings.json"  # a run's settings, in its output (`prmkit.rl.run`)


@dataclass
class RLConfig(DecodingConfig, TrainRunConfig):
    """GRPO with outcome and process rewards (TRL's GRPOTrainer; PUM sec 4.4 / appendix D.4, PSPO eq. 9-11): the fields
    of `TrainRunConfig` and `DecodingConfig`. Defaults: PUM D.4 (temperature, top-p, KL and process coefficients,
    segments), PSPO (LoRA, lr); CPU-sized where the papers' cannot run on a CPU (the helps say so)."""

    model: str = field(default=DEFAULT_MODEL, metadata=_help("policy: embedded name or local HF directory.",
                                                             role="input"))
    reward: str = field(default="outcome", metadata=_help(
        "reward spec: terms [w*]name[:model] joined by '+', names outcome | prm_prod | prm_min | prm_geomean | "
        "pspo_wrs | pum (rewards.REWARDS), e.g. outcome+pspo_wrs:runs/prm; summed with their weights, then "
        "group-normalised by GRPO. A model is a checkpoint or a scorer spec KIND:PATH, KIND one of "
        f"{' | '.join(SCORERS)} (models.SCORERS), e.g. outcome+prm_min:truth:runs/rl/train.jsonl (the bench's "
        "exact checker) or outcome+prm_min:rule: (each step's arithmetic)."))
    process: str | None = field(default=None, metadata=_help(
        "step-level process advantages NAME:SCORER added on each step's tokens, A = A_GRPO + coef * A_process "
        "(PUM D.4), SCORER a scorer spec (a checkpoint, truth:PROBLEMS, ...) or rollouts:PROVER[,k=4,...] (the "
        "fraction of k rollouts of the prover from each prefix that end right), e.g. pum:runs/pum, "
        "min:truth:runs/rl/train.jsonl, progress:rollouts:runs/sft; NAME (rl.PROCESS_ADVANTAGES): "
        f"{describe_credit()}. None: GRPO's advantages only."))
    process_coef: float = field(default=0.5, metadata=_help("A = A_GRPO + coef * A_process (PUM D.4: 0.5); 0 logs "
                                                            "the process advantages without training on them.",
                                                            range=NON_NEGATIVE))
    max_segments: int = field(default=8, metadata=_help("steps grouped into at most this many segments (D.4: 8).",
                                                        range=COUNT))
    data: str = field(default="demo", metadata=_help("problems: demo | a GSM8K-style, Problem or Pool JSONL file.",
                                                     role="input"))
    problems_range: str = field(default="0:40", metadata=_help("training problems by index, START:END."))
    heldout_range: str | None = field(default="40:50", metadata=_help(
        "held-out problems START:END, accuracy measured before and after training (None: no held-out check)."))
    heldout_data: str | None = field(default=None, metadata=_help(
        "problems of the held-out evaluation (demo | a JSONL file), --heldout-range of them; None: --data. Keep them "
        "out of every training set (`prmkit data bench --exclude`).", role="input"))
    heldout_samples: int = field(default=8, metadata=_help("samples per held-out problem (accuracy = mean over "
                                                           "samples, at the training temperature), plus one "
                                                           "greedy completion (greedy accuracy).", range=NON_NEGATIVE))
    heldout_steps: int = field(default=0, metadata=_help("optimiser steps between held-out evaluations, each a line of "
                                                      "heldout.jsonl and a point of heldout.png (0: before and "
                                                      "after training only).", resume="may-change", range=NON_NEGATIVE))
    heldout_before: str | None = field(default=None, metadata=_help(
        "take the step-0 held-out measurement from this run's output (its heldout.jsonl) instead of measuring it: "
        "refused unless that run measured the same policy on the same held-out problems with the same samples, "
        "sampling, template and seed (the step-0 point of runs at one seed is the same); None: measure it.",
        resume="may-change"))
    steps: int = field(default=30, metadata=_help("optimiser steps (CPU-sized; each step samples a new batch).",
                                                  resume="may-change", range=COUNT))
    group_size: int = field(default=4, metadata=_help("completions per prompt G (PUM D.4: 8; 4 on CPU).", range=COUNT))
    prompts_per_step: int = field(default=2, metadata=_help("prompts per optimiser step (PUM D.4: 64 on 8 GPUs).",
                                                            range=COUNT))
    lr: float = field(default=1.41e-5, metadata=_help("AdamW learning rate (PSPO, LoRA: 1.41e-5; PUM full "
                                                      "fine-tuning: 1e-6).", range=LR))
    beta: float = field(default=0.001, metadata=_help("KL coefficient against the reference policy (PUM D.4: "
                                                      "0.001; 0 = no reference model and no KL logged).",
                                                      range=NON_NEGATIVE))
    temperature: float = field(default=1.0, metadata=_help("sampling temperature (PUM D.4: 1.0).", range=TEMPERATURE))
    top_p: float = field(default=1.0, metadata=_help("nucleus sampling mass (PUM D.4: 1.0).", range=TOP_P))
    max_new_tokens: int = field(default=192, metadata=_help("tokens per completion at most (PUM: 4096; CPU: 192).",
                                                            range=MAX_NEW_TOKENS))
    lora_r: int = field(default=16, metadata=_help("LoRA rank via peft on all linear layers (PSPO trains with "
                                                   "LoRA); 0 = full fine-tuning.", range=NON_NEGATIVE))
    lora_alpha: int = field(default=32, metadata=_help("LoRA alpha.", range=NON_NEGATIVE))
    chat: bool = field(default=True, metadata=_help("few-shot prompts in the policy's chat template (as generate)."))
    seed: int = field(default=0, metadata=_help("sampling, data order and initialisation seed.", range=SEED))
    save_steps: int = field(default=10, metadata=_help("optimiser steps between checkpoints <output>/checkpoint-N.",
                                                       resume="may-change", range=NON_NEGATIVE))
    resume: bool = field(default=False, metadata=_help("continue from the last <output>/checkpoint-N (a fresh start "
                                                       "when there is none).", resume="may-change"))
    trainer_args: list[str] = field(default_factory=list, metadata=_help(
        "further GRPOConfig arguments as KEY=VALUE (YAML value), e.g. loss_type=grpo scale_rewards=none."))
    output: str = field(default="", metadata=_help("run directory (checkpoints, metrics, curves, final policy)",
                                                   resume="may-change") | {"required": True, "role": "output-dir"})
