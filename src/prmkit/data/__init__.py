"""Records (Problem, Trace, StepLabels, Pool), their readers and writers, and the formats of other tools."""

from prmkit.data.join import JoinReport, join_labels, read_labels
from prmkit.data.jsonl import AppendOnlyWriter, DataError, read_records, write_records
from prmkit.data.labeled import LABELED_READERS, read_labeled
from prmkit.data.locks import OutputBusy, output_lock
from prmkit.data.outputs import OutputPathError, atomic_dir, atomic_path, check_output_path, save_figure
from prmkit.data.records import Pool, PrefixPair, Problem, RecordError, StepLabels, Trace
from prmkit.data.steplevel import STEP_READERS, STEP_WRITERS, StepRecord, read_step_records

__all__ = ["LABELED_READERS", "STEP_READERS", "STEP_WRITERS", "AppendOnlyWriter", "DataError", "JoinReport",
           "OutputBusy", "OutputPathError", "Pool", "PrefixPair", "Problem", "RecordError", "StepLabels",
           "StepRecord", "Trace", "atomic_dir", "atomic_path", "check_output_path", "join_labels", "output_lock",
           "read_labeled", "read_labels", "read_records", "read_step_records", "save_figure", "write_records"]
