"""Step labels for process supervision: labelers behind one interface (`LABELERS`), run by one recipe
(`label_pools`); thresholds and export."""

from prmkit.label.base import LabelCost, Labeled, Labeler, LabelerBase
from prmkit.label.complexity import information_tokens, omegaprm_tokens, shepherd_tokens
from prmkit.label.export import EXPORT_FORMATS, ExportConfig, export_labels, to_dataset, trl_records
from prmkit.label.information import InformationConfig, InformationLabeler, make_scorer, paper_tokens
from prmkit.label.information_gain import information_gain
from prmkit.label.math_shepherd import MathShepherdLabeler, mc_estimates
from prmkit.label.mcnig import mcnig, net_information
from prmkit.label.omegaprm import FirstErrorSearch, OmegaPRMLabeler, first_error, first_error_labels
from prmkit.label.pum import (
    PrefixPoint,
    PumConfig,
    StudentSpec,
    candidate_pairs,
    capability_weights,
    conflict_rate,
    gain,
    global_margin,
    intrinsic_utility,
    label_pum,
    normalisation,
    pair_label,
    parse_student,
    prefix_step_counts,
)
from prmkit.label.pum.labeler import PumLabelConfig, PumLabeler
from prmkit.label.recipe import (
    LabelConfig,
    LabelReport,
    build_labelers,
    label_pools,
    method_list,
    output_paths,
    run_labelers,
)
from prmkit.label.registry import LABELERS, labeler_configs
from prmkit.label.rollout_batches import PrefixRoller
from prmkit.label.rollout_labeling import RolloutLabelConfig
from prmkit.label.threshold import balanced_accuracy, cot_scores, missing_classes, soft_labels, sweep_threshold
from prmkit.label.threshold_files import (
    ThresholdConfig,
    apply_threshold,
    check_same_settings,
    read_settings,
    read_tau,
    threshold_files,
)

__all__ = ["EXPORT_FORMATS", "LABELERS", "ExportConfig", "FirstErrorSearch", "InformationConfig", "InformationLabeler",
           "LabelConfig", "LabelCost", "LabelReport", "Labeled", "Labeler", "LabelerBase", "MathShepherdLabeler",
           "OmegaPRMLabeler", "PrefixPoint", "PrefixRoller", "PumConfig", "PumLabelConfig", "PumLabeler",
           "RolloutLabelConfig", "StudentSpec", "ThresholdConfig", "apply_threshold", "balanced_accuracy",
           "build_labelers", "candidate_pairs", "capability_weights", "check_same_settings", "conflict_rate",
           "cot_scores", "export_labels", "first_error", "first_error_labels", "gain", "global_margin",
           "information_gain", "information_tokens", "intrinsic_utility", "label_pools", "label_pum", "labeler_configs",
           "make_scorer", "mc_estimates", "mcnig", "method_list", "missing_classes", "net_information", "normalisation",
           "omegaprm_tokens", "output_paths", "pair_label", "paper_tokens", "parse_student", "prefix_step_counts",
           "read_settings", "read_tau", "run_labelers", "shepherd_tokens", "soft_labels", "sweep_threshold",
           "threshold_files", "to_dataset", "trl_records"]
