"""The model class of a `prmkit export-hf` export whose head is PUM's MLP value head (appendix C): load it with
`AutoModelForTokenClassification.from_pretrained(dir, trust_remote_code=True)`; `logits[0, i, 0]` at the i-th step
separator is the utility U. Imports only torch and transformers: it is copied into each export."""

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
