"""An Inspect AI task scored by the scorer in my_scorers.py, offline: `inspect eval arith.py`.

The model is Inspect's `mockllm/model` with canned replies, each with `usage`
set (without it, mockllm counts tokens with a tokenizer it downloads). The
replies are 0.1 %, 0.6 % and 1.4 % away from the targets, so `within_1pct`
scores 2 of 3 with its default tolerance, and 3 of 3 with `tolerance=0.05`.
"""

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate
from my_scorers import within_1pct

from scorebridge_inspect import to_inspect

TARGETS = {"What is 100 / 3?": "33.333", "What is 2 ** 10?": "1024", "What is 22 / 7?": "3.142857"}
REPLIES = {"What is 100 / 3?": "33.3", "What is 2 ** 10?": "1030", "What is 22 / 7?": "3.1"}


def reply(messages, *args):
    output = ModelOutput.from_content("mockllm/model", REPLIES[messages[-1].text])
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # offline: no tokenizer download
    return output


@task
def arith():
    return Task(
        dataset=[Sample(input=question, target=target) for question, target in TARGETS.items()],
        solver=generate(),
        scorer=to_inspect(within_1pct),
        model=get_model("mockllm/model", custom_outputs=reply),
    )
