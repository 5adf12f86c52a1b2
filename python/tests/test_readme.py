"""The README's Python example and the docstrings' examples run as written (doctest)."""
import doctest
import os

import numpy

import cleave

README = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")


def run_examples(text, name):
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {"cleave": cleave, "numpy": numpy}, name, README, 0)
    assert test.examples, f"no examples in {name}"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0


def test_readme_python_section():
    with open(README, encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("## Python\n"):]
    section = section[:section.index("\n## ", 1)]
    block = section[section.index("```python\n") + 10:]
    run_examples(block[:block.index("```")], "README.md (Python)")


def test_docstring_examples():
    for obj in (cleave.split, cleave.variadic_split, cleave.split_to_sequence, cleave.onnx_split,
                cleave.infer, cleave.Plan, cleave.ElementType, cleave):
        run_examples(obj.__doc__, getattr(obj, "__name__", "cleave"))
