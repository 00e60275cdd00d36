#!/usr/bin/env python3
"""Validate a JSON file against a JSON Schema (draft 2020-12).

    python3 scripts/validate_results.py schema/results.schema.json out/run/results.json

Exit status: 0 valid, 1 invalid (each violation printed with its JSON path),
2 usage error, unreadable file, or the jsonschema module is missing.
Also works for matrix files: schema/matrix.schema.json scenarios/quick.json, and for
files of JSON Lines (named *.jsonl), each line validated on its own, e.g. worker-protocol
messages: schema/worker-protocol.schema.json transcript.jsonl.
"""
import json
import sys


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        import jsonschema
    except ImportError:
        print("validate_results.py: python3 module 'jsonschema' is missing "
              "(Debian: apt-get install python3-jsonschema)", file=sys.stderr)
        return 2
    schema_path, doc_path = argv[1], argv[2]
    try:
        with open(schema_path) as f:
            schema = json.load(f)
        with open(doc_path) as f:
            if doc_path.endswith(".jsonl"):
                docs = [(f"line {n}: ", json.loads(line)) for n, line in enumerate(f, 1) if line.strip()]
            else:
                docs = [("", json.load(f))]
    except (OSError, ValueError) as e:
        print(f"{e.filename if isinstance(e, OSError) else doc_path}: {e}", file=sys.stderr)
        return 2
    validator = jsonschema.Draft202012Validator(schema)
    errors = []
    for prefix, doc in docs:
        for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path)
            print(f"{doc_path}: {prefix}{where.lstrip('.') or '(root)'}: {e.message}", file=sys.stderr)
            errors.append(e)
    if errors:
        print(f"{doc_path}: {len(errors)} schema violation(s) against {schema_path}", file=sys.stderr)
        return 1
    print(f"{doc_path}: valid against {schema_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
