"""Answer validators V_q(y) -> Verdict (MCNIG paper sec 3.1) for math, python, sql and choice; they know no domain."""

from prmkit.verify.base import Validator, Verdict
from prmkit.verify.math import math_equal, verify_math

__all__ = ["Validator", "Verdict", "math_equal", "verify_math"]
