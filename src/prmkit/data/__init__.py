"""Records, readers and writers: Problem, Trace, StepLabels, Pool; GSM8K, TRL stepwise, JSONL."""

from prmkit.data.join import join_labels
from prmkit.data.jsonl import AppendOnlyWriter, DataError, read_records, write_records
from prmkit.data.records import Pool, Problem, RecordError, StepLabels, Trace

__all__ = ["AppendOnlyWriter", "DataError", "Pool", "Problem", "RecordError", "StepLabels", "Trace",
           "join_labels", "read_records", "write_records"]
