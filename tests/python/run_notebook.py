"""Runs a notebook's code cells, in order, as one script (nbconvert need not be installed):
    run_notebook.py NOTEBOOK.ipynb
The figures go to a temporary folder (DALEMBERT_FIGURE_DIR); matplotlib draws with Agg. The
notebook's own assertions check its numbers; this checks that it saved its figures."""
import json
import os
import pathlib
import sys
import tempfile

os.environ.setdefault("MPLBACKEND", "Agg")


def main(path):
    nb = json.loads(pathlib.Path(path).read_text())
    assert nb["nbformat"] == 4, f"{path}: nbformat {nb['nbformat']}, expected 4"
    with tempfile.TemporaryDirectory(prefix="dalembert-notebook-") as tmp:
        os.environ["DALEMBERT_FIGURE_DIR"] = tmp
        namespace = {"__name__": "__main__"}
        cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
        for i, cell in enumerate(cells):
            source = "".join(cell["source"])
            exec(compile(source, f"{path} [code cell {i + 1} of {len(cells)}]", "exec"), namespace)
        figures = sorted(p.name for p in pathlib.Path(tmp).glob("*.png"))
        print(f"{path}: {len(cells)} code cells ran; figures: {', '.join(figures)}")
        assert figures, "the notebook saved no figure"


if __name__ == "__main__":
    main(sys.argv[1])
