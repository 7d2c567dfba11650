"""docs/python.md's notebook block runs as written and prints what the
doc says it prints."""

import os
import re
import subprocess
import sys

from conftest import ROOT


def notebook_block():
    text = (ROOT / "docs" / "python.md").read_text()
    start = text.index("## A notebook")
    end = text.find("\n## ", start + 1)
    section = text[start:] if end < 0 else text[start:end]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1), section


def test_the_notebook_runs_and_prints_what_the_doc_says(tmp_path):
    code, section = notebook_block()
    env = dict(os.environ, MPLBACKEND="Agg")
    script = tmp_path / "notebook.py"
    # Relative sample paths resolve from the repository root; plots land in tmp.
    script.write_text(f"import os\nos.chdir({str(ROOT)!r})\n" + code.replace('"families.png"', repr(str(tmp_path / "families.png"))).replace('"fan.png"', repr(str(tmp_path / "fan.png"))))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, check=True)
    lines = out.stdout.splitlines()
    assert len(lines) == 2
    prose = " ".join(section[section.index("On the samples it prints"):].split())
    assert " ".join(lines[0].split()) in prose
    assert lines[1] in prose
