"""Answer validators V_q(y) -> Verdict (MCNIG paper, sec. 3.1), one per kind of problem (math, python, sql, choice).
A validator knows no domain: `prmkit.domains` binds each to one and dispatches `verify_answer` on a problem's domain.
(The bench's exact step checker is `prmkit.data.bench_checker`: it reads only data records.)"""

from prmkit.verify.base import Validator, Verdict
from prmkit.verify.math import math_equal, verify_math

__all__ = ["Validator", "Verdict", "math_equal", "verify_math"]
