"""Reads the Prometheus text that GET /metrics answers, for the test scripts (e2e, prove.d)."""
import re

_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$")


def metric_sum(text, name, labels=None):
    """Sum of metric `name`'s samples (only those carrying all `labels`, when given); None when it has none."""
    total, found = 0.0, False
    for line in text.splitlines():
        match = _SAMPLE.match(line)  # '# HELP'/'# TYPE' lines never match
        if not match or match.group(1) != name:
            continue
        if labels and not all(f'{k}="{v}"' in (match.group(2) or "") for k, v in labels.items()):
            continue
        total += float(match.group(3))
        found = True
    return total if found else None
