"""Records, readers and writers: Problem, Trace, StepLabels, Pool; GSM8K, TRL stepwise, JSONL."""

from prmkit.data.jsonl import AppendOnlyWriter, DataError, read_records, write_records
from prmkit.data.locks import OutputBusy, output_lock
from prmkit.data.records import Pool, Problem, RecordError, StepLabels, Trace

__all__ = ["AppendOnlyWriter", "DataError", "OutputBusy", "Pool", "Problem", "RecordError", "StepLabels", "Trace",
           "output_lock", "read_records", "write_records"]
