"""Experiment recipes: the components of the layers below (problems, samplers, labelers, trainers, scorers) run end
to end, each in one resumable output directory with its settings kept beside it: the step-label bench (`bench`,
figures `bench_metrics`, tables `bench_report`), labels that pay off (`payoff`, `payoff_report`), the bench policy's
supervised warm start (`sft`, data `sft_data`) and bench problem sets disjoint from other sets (`bench_sets`).
"""
