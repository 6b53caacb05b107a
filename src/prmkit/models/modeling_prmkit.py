"""The model class of a `prmkit export-hf` export whose head is an MLP: PUM's `bt` value head (appendix C,
Linear(H, H)-GELU-Linear(H, 1)) as the `score` of the decoder's `<Arch>ForTokenClassification`.

No standard transformers head is an MLP, so `export-hf` writes this file beside the weights as `modeling_prmkit.py`
(with `BASE` set to the decoder's token-classification class) and points config.json's `auto_map` at it; then

    AutoModelForTokenClassification.from_pretrained(dir, trust_remote_code=True)

loads the export with nothing missing, and `logits[0, i, 0]` at the i-th step separator is prmkit's utility U.
Self-contained on purpose: it imports only torch and transformers, never prmkit.
"""

import torch
import transformers

BASE = "LlamaForTokenClassification"  # prmkit export-hf writes here the decoder's <Arch>ForTokenClassification


class PrmkitMLPForTokenClassification(getattr(transformers, BASE)):
    """`BASE` with `score` = Linear(H, H) - GELU - Linear(H, num_labels) (weights `score.0.*`, `score.2.*`)."""

    def __init__(self, config):
        super().__init__(config)
        width = config.get_text_config().hidden_size
        self.score = torch.nn.Sequential(torch.nn.Linear(width, width), torch.nn.GELU(),
                                         torch.nn.Linear(width, config.num_labels))
        self.post_init()
