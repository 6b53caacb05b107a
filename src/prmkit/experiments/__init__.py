"""Experiment recipes: the components of the layers below (problems, samplers, labelers, trainers, scorers) run end
to end, each in one resumable output directory with its settings kept beside it.

- `bench`: the step-label bench (`prmkit bench`): every labeler on the same traces of problems with exact step
  truth, scored against it (`bench_metrics`, tables and plot in `bench_report`);
- `payoff`: do a labeler's labels pay off (`prmkit payoff run` / `table`): a reward model trained on them, in
  best-of-K and weighted voting on fresh problems (`payoff_report`);
- `sft`: the bench policy's supervised warm start on right bench traces (`prmkit sft`; data in `sft_data`);
- `bench_sets`: files of bench problems disjoint by question from other sets (`prmkit data bench`).
"""
