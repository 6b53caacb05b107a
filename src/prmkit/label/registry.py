"""The labelers by method name: `prmkit label --method NAME` picks `LABELERS[NAME]`.

A labeler class may serve several names (IG and MCNIG are one `InformationLabeler`); methods asked for
together that map to the same class are served by one instance, so they share its work per problem.
A new labeler is one file (see `prmkit.label.base`) plus one line here.
"""

from __future__ import annotations

from prmkit.label.base import Labeler
from prmkit.label.information import InformationLabeler
from prmkit.label.math_shepherd import MathShepherdLabeler
from prmkit.label.omegaprm import OmegaPRMLabeler
from prmkit.label.pum.labeler import PumLabeler

__all__ = ["LABELERS", "labeler_configs"]

LABELERS: dict[str, type[Labeler]] = {
    "ig": InformationLabeler,
    "mcnig": InformationLabeler,
    "mcnig-mean": InformationLabeler,  # MCNIG appendix D variants, in the same forward pass
    "mcnig-previous": InformationLabeler,
    "mcnig-mean-previous": InformationLabeler,
    "math-shepherd": MathShepherdLabeler,
    "math-shepherd-hard": MathShepherdLabeler,
    "omegaprm": OmegaPRMLabeler,
    "pum": PumLabeler,  # PUM prefix utility per step (the students' mean gain)
}


def labeler_configs() -> list[type]:
    """The settings dataclass of each registered labeler, once each, in registry order (for the CLI flags)."""
    return list(dict.fromkeys(cls.config_class for cls in LABELERS.values()))
