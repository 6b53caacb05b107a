"""Tolerances of the suite's float comparisons, derived from float32 arithmetic rather than tuned on one machine.

float32 keeps a 24-bit significand: one rounding moves a value by at most 2^-24 ≈ 6e-8 of its size. When a test
computes the same quantity twice along two paths (a batch of another shape, a prefix alone and inside its trace,
a model saved and loaded), the two differ by the roundings of the sums they contain, and BLAS/OpenMP may sum in
another order with another CPU or thread count. A dot product of n terms of size s is off by at most n·s·2^-24
in the worst case and about sqrt(n)·s·2^-24 typically.

- `MODEL_ABS` (1e-5): an output of the tiny test model (2 layers, hidden 64, intermediate 128; scores, logits and
  log-probs of size ≲ 10). Its longest sums have 128 terms of size ≲ 1, so one layer's output moves by ≲ 8e-6 in
  the worst case and ~7e-7 typically; measured: up to 6e-7 between runs with 1 and 2 threads. 1e-5 bounds the
  worst case and stays ≥ 100× below the differences the tests look for (a changed step, a trained model: > 1e-3).
- `FLOAT32_REL` (1e-5): a handful (≤ 10) of float32 operations on values of size ~1 in another order, e.g. a loss
  recomputed from the same per-step terms: ≤ 10 roundings ≈ 6e-7 relative, 16× margin.

`pytest.approx`'s default (rel 1e-6) is below a single worst-case dot product of 17 float32 terms: never use it
for a float32 result computed along two paths.
"""

MODEL_ABS = 1e-5
FLOAT32_REL = 1e-5
