"""Run one python grader's `grade(sample, item)` in this process: the child a python grader's scorer starts.

Read from standard input: a JSON object `{"source", "sample", "item"}`. Written to
standard output, once: `{"value": number}`, or `{"error": flag, "why": text}`, with
OpenAI's error flags (`python_grader_runtime_error`). What the grader itself prints
goes to standard error, so it cannot be taken for the result.
"""

import json
import math
import sys
import traceback


def main() -> None:
    request = json.loads(sys.stdin.read())
    out = sys.stdout
    sys.stdout = sys.stderr
    try:
        namespace: dict[str, object] = {"__name__": "grader"}
        exec(compile(request["source"], "<grader source>", "exec"), namespace)
        grade = namespace["grade"]
        assert callable(grade), "grade is not a function"
        value = grade(request["sample"], request["item"])
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            why = f"grade returned {value!r:.100}, not a number"
            result: dict[str, object] = {"error": "python_grader_runtime_error", "why": why}
        else:
            result = {"value": float(value)}
    except BaseException as exc:  # the grader's fault, whatever it is, is its row's result
        last = traceback.format_exception_only(type(exc), exc)[-1].strip()
        result = {"error": "python_grader_runtime_error", "why": f"grade raised {last}"}
    out.write(json.dumps(result))
    out.flush()


if __name__ == "__main__":
    main()
