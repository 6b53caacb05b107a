# kill -9 during `prmkit label` on the embedded model, then the same command again; compare with a clean run.
set -u
cd "$(dirname "$0")/.."; export OMP_NUM_THREADS=1
D=../shared/data/gsm8k/candidates_dev.jsonl
rm -rf runs/k9; mkdir -p runs/k9
prmkit label --method mcnig --input $D --limit 16 --quiet --output runs/k9/clean.jsonl > runs/k9/clean.report.json 2>/dev/null
prmkit label --method mcnig --input $D --limit 16 --quiet --output runs/k9/killed.jsonl > /dev/null 2>&1 &
PID=$!
while [ "$(cat runs/k9/killed.jsonl 2>/dev/null | wc -l)" -lt 20 ]; do sleep 0.2; done
kill -9 $PID; wait $PID 2>/dev/null
echo "lines after kill -9: $(wc -l < runs/k9/killed.jsonl)"
prmkit label --method mcnig --input $D --limit 16 --quiet --output runs/k9/killed.jsonl > runs/k9/resumed.report.json 2>/dev/null
python - <<'PY'
import json
clean = [json.loads(x) for x in open("runs/k9/clean.jsonl")]
res = [json.loads(x) for x in open("runs/k9/killed.jsonl")]
ids = [r["trace_id"] for r in res]
print("records clean", len(clean), "resumed", len(res), "unique", len(set(ids)))
c = {r["trace_id"]: r for r in clean}
print("same trace set:", set(ids) == set(c))
print("labels equal:", all(r["labels"] == c[r["trace_id"]]["labels"] for r in res))
print("max |score diff|:", max(abs(a - b) for r in res for a, b in zip(r["scores"], c[r["trace_id"]]["scores"])))
print("resumed report: resumed problems =", json.load(open("runs/k9/resumed.report.json"))["resumed"])
PY
