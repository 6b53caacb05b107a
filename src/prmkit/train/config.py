"""The config of a reward model's training run; defaults from the MCNIG paper (sec 3.3-3.4 and 4.4: AdamW, lr 1e-6,
128 samples a batch, two epochs, inputs up to 8192 tokens) and the PSPO paper for the 3-class head."""

from dataclasses import dataclass, field

from prmkit.data.settings import COUNT, FRACTION, LR, NON_NEGATIVE, SEED, THREADS, Range, check_limits

__all__ = ["TrainConfig", "TrainInputs", "TrainRunConfig", "TrainTarget"]


@dataclass
class TrainRunConfig:
    """What every training run sets (model, lr, LoRA, seed, threads, checkpoints, trainer arguments); `TrainConfig`
    and `rl.RLConfig` inherit it, the defaults here the reward model's."""

    model: str = field(default="smollm2-135m", metadata={"help": "base model: embedded name or local HF directory.",
                                                         "role": "input"})
    lr: float = field(default=1e-6, metadata={"help": "AdamW learning rate (paper: 1e-6 for 8B/14B models).",
                                              "range": LR})
    lora_r: int = field(default=0, metadata={"help": "LoRA rank via peft; 0 = full fine-tuning (the paper).",
                                             "range": NON_NEGATIVE})
    lora_alpha: int = field(default=16, metadata={"help": "LoRA alpha.", "range": NON_NEGATIVE})
    seed: int = field(default=0, metadata={"help": "shuffling and initialisation seed.", "range": SEED})
    threads: int = field(default=0, metadata={"help": "torch CPU threads (0 = torch default).", "resume": "may-change",
                                              "range": THREADS})
    save_steps: int = field(default=0, metadata={"help": "optimiser steps between checkpoints when save_strategy "
                                                          "is steps.", "resume": "may-change", "range": NON_NEGATIVE})
    save_total_limit: int = field(default=2, metadata={"help": "checkpoints kept (oldest deleted; 0 = all).",
                                                       "resume": "may-change", "range": NON_NEGATIVE})
    resume: bool = field(default=False, metadata={"help": "continue from the last <output>/checkpoint-N (weights, "
                                                         "optimiser, scheduler, data order); a fresh start when "
                                                         "there is none.", "resume": "may-change"})
    trainer_args: list[str] = field(default_factory=list, metadata={"help": "further TrainingArguments as "
                                                                           "KEY=VALUE (YAML value), e.g. "
                                                                           "deepspeed=ds.json."})

    def __post_init__(self) -> None:
        check_limits(self)


@dataclass
class TrainConfig(TrainRunConfig):
    """Optimisation of a reward model (MCNIG sec 4.4 defaults unless the help says otherwise); the fields shared
    with GRPO are `TrainRunConfig`'s."""

    epochs: float = field(default=2.0, metadata={"help": "passes over the training set (paper: 2).",
                                                 "range": Range(0, 100_000, open_low=True)})
    weight_decay: float = field(default=0.0, metadata={"help": "AdamW weight decay.", "range": NON_NEGATIVE})
    warmup: float = field(default=0.0, metadata={"help": "fraction of steps with linear warm-up, then linear decay.",
                                                 "range": FRACTION})
    batch_traces: int = field(default=128, metadata={"help": "traces per optimiser step (paper: 128 samples); a "
                                                             "problem's traces stay in one batch.", "range": COUNT})
    micro_batch: int = field(default=8, metadata={"help": "traces per forward pass (gradient accumulation).",
                                                  "range": COUNT})
    max_length: int = field(default=8192, metadata={"help": "tokens per input (paper: 8192); longer traces lose "
                                                            "their last steps (prm) or are skipped (orm).",
                                                    "range": COUNT})
    grad_clip: float = field(default=1.0, metadata={"help": "max gradient norm (0 = off).", "range": NON_NEGATIVE})
    lora_dropout: float = field(default=0.0, metadata={"help": "LoRA dropout.", "range": FRACTION})
    freeze_layers: int = field(default=0, metadata={"help": "freeze the embeddings and the lowest N decoder layers "
                                                            "(a CPU-budget option, off in the paper).",
                                                    "range": NON_NEGATIVE})
    keep_layers: int = field(default=0, metadata={"help": "keep only the lowest N decoder layers of the base model "
                                                          "(0 = all; a CPU-budget option, not in the paper).",
                                                  "range": NON_NEGATIVE})
    max_steps: int = field(default=0, metadata={"help": "stop after this many optimiser steps (0 = run `epochs`).",
                                                "resume": "may-change", "range": NON_NEGATIVE})
    eval_strategy: str = field(default="epoch", metadata={"help": "held-out check: epoch | steps | no.",
                                                          "resume": "may-change"})
    eval_steps: int = field(default=0, metadata={"help": "optimiser steps between held-out checks when "
                                                          "eval_strategy is steps.", "resume": "may-change",
                                                 "range": NON_NEGATIVE})
    save_strategy: str = field(default="epoch", metadata={"help": "checkpoints <output>/checkpoint-N: epoch | "
                                                                  "steps | no.", "resume": "may-change"})
    logging_steps: int = field(default=1, metadata={"help": "optimiser steps between loss logs.",
                                                    "resume": "may-change", "range": COUNT})
    report_to: str = field(default="auto", metadata={"help": "logging integrations of transformers (tensorboard, "
                                                             "wandb, ...; comma-separated); auto = tensorboard when "
                                                             "installed, none = off.", "resume": "may-change"})
    bf16: bool = field(default=False, metadata={"help": "bf16 mixed precision (GPU)."})


@dataclass
class TrainInputs:
    """What a run trains on and where its output may go (`prmkit train` flags, `prmkit.train` keywords)."""

    pools: str | None = field(default=None, metadata={"help": "Pool JSONL, GSM8K candidates_dev.jsonl or demo: "
                                                              "the traces the labels are joined to.", "role": "input"})
    labels: str | None = field(default=None, metadata={"help": "StepLabels JSONL (joined on trace_id), or a TRL "
                                                               "stepwise file when no pools are given.",
                                                       "role": "input"})
    pairs: str | None = field(default=None, metadata={"help": "bt/pum: PrefixPair JSONL written by `prmkit pum`.",
                                                      "role": "input"})
    problems_range: str | None = field(default=None, metadata={"help": "problems by index in the input, e.g. "
                                                                       "0:500."})
    held_out: int | None = field(default=None, metadata={"help": "hold out the last N training problems for the "
                                                                 "held-out check (unset: 5% of the problems, at "
                                                                 "least 1 when there are 2 or more; 0 = none).",
                                                         "range": NON_NEGATIVE})
    soft: bool = field(default=False, metadata={"help": "soft targets: sigmoid(score - tau) for IG/MCNIG labels, "
                                                        "the values of a TRL file."})
    neutral_band: float | None = field(default=None, metadata={"help": "prm3 from IG/MCNIG labels: steps with "
                                                                       "|score - tau| <= B are neutral (0), above "
                                                                       "+1, below -1.", "range": NON_NEGATIVE})
    allow_duplicates: bool = field(default=False, metadata={"help": "keep the first of repeated problem ids / "
                                                                    "labeled trace ids instead of refusing.",
                                                                    "resume": "may-change"})
    require_all_labels: bool = field(default=False, metadata={"help": "a trace without labels or a label "
                                                                      "without a trace is an error.",
                                                                      "resume": "may-change"})
    overwrite: bool = field(default=False, metadata={"help": "replace a non-empty output directory that is not a "
                                                             "checkpoint of this run (its checkpoints are removed).",
                                                             "resume": "may-change"})

    def __post_init__(self) -> None:
        check_limits(self)


@dataclass
class TrainTarget:
    """`prmkit train KIND --output DIR`: the head to train and the checkpoint directory to write."""

    kind: str = field(default="", metadata={"help": "the head: prm, orm, prm3, bt (pum = bt), "
                                                    "prmkit.models.heads.HEADS", "positional": True})
    output: str = field(default="", metadata={"help": "checkpoint directory to write", "required": True})
