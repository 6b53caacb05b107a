"""The labelers by method name (`prmkit label --method NAME`); methods of one class share one instance."""

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from prmkit.data.settings import build_config
from prmkit.label.base import Labeler
from prmkit.label.information import InformationLabeler
from prmkit.label.math_shepherd import MathShepherdLabeler
from prmkit.label.omegaprm import OmegaPRMLabeler
from prmkit.label.pum.labeler import PumLabeler

__all__ = ["LABELERS", "check_labelers", "claim_pairs", "cost_reference", "labeler_configs", "shared_configs"]

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


def shared_configs(shared: Mapping[str, Any]) -> list[Any]:
    """Each registered labeler's config, the fields that `shared` names taken from it, the others defaulted."""
    return [build_config(cls, {}, shared) for cls in labeler_configs()]


def check_labelers(methods: Iterable[str], settings: Sequence[Any] = ()) -> None:
    """Run the `check` of each labeler serving `methods` (those that have one) on its config among `settings`."""
    by_class = {type(s): s for s in settings}
    for cls in dict.fromkeys(LABELERS[m] for m in methods):
        if (check := getattr(cls, "check", None)) is not None:
            check(by_class.get(cls.config_class) or cls.config_class())


def claim_pairs() -> list[tuple[str, str]]:
    """(method, against) for every claim of a registered labeler (`claims`), in registry order."""
    return [(m, b) for m, cls in LABELERS.items() for b in getattr(cls, "claims", {}).get(m, ())]


def cost_reference() -> str | None:
    """The method whose tokens per trace the other labelers' are put over (the first `cost_reference` declared)."""
    return next((ref for cls in LABELERS.values() if (ref := getattr(cls, "cost_reference", None))), None)
