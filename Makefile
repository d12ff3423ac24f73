# Two commands (see README.md):
#   make lab    set up .venv, then JupyterLab on the repository, opened on the first notebook
#   make test   set up .venv, then the whole pytest suite, notebooks included (nbval)
# Settings:  GPU=1 adds PyCUDA (needs the CUDA toolkit)   HOST=127.0.0.1  PORT=8888  NO_BROWSER=1
#            PYTHON=python3 (interpreter that creates .venv)   PYTEST_ARGS=... (extra pytest args)
#            PYTEST_JOBS=auto (pytest-xdist workers: one a core; 0 runs the tests in one process)
#            BENCH_ARGS=... (make bench: e.g. --tiny, --out DIR)   LAB_ARGS=... (extra jupyter lab args)
#            SITE=build/site (make site's folder)   SITE_ARGS=... (e.g. --repository URL)
#            CLASS_SIZE=N (notebooks shrink their working sizes for N learners sharing one machine)

PYTHON     ?= python3
VENV       ?= .venv
HOST       ?= 127.0.0.1
PORT       ?= 8888
NO_BROWSER ?=
GPU        ?=
PYTEST_ARGS ?=
PYTEST_JOBS ?= auto
BENCH_ARGS ?=
LAB_ARGS ?=
SITE ?= build/site
SITE_ARGS ?=
CLASS_SIZE ?=
POINTS ?=
POINTS_ARG = $(if $(POINTS),--points $(POINTS),)
FIRST_NOTEBOOK := notebooks/01_hello_cuda.ipynb

VPY := $(VENV)/bin/python
comma := ,
# GPU=1 adds the gpu extra: the stamp .installed-test-gpu installs ".[test,gpu]".
GPU_TAG := $(if $(filter-out 0,$(GPU)),-gpu,)

# Jupyter refuses to run as root unless told; containers and CI often are root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)
BROWSER_FLAG := $(if $(filter-out 0,$(NO_BROWSER)),--no-browser,)

.PHONY: lab lab-command test lint bench site student-release collect grade feedback gradescope \
  clean distclean help
.DEFAULT_GOAL := help

help:
	@echo "make lab    JupyterLab on the course, opened on $(FIRST_NOTEBOOK) (HOST=$(HOST) PORT=$(PORT) NO_BROWSER=1 GPU=1 CLASS_SIZE=N)"
	@echo "make test   the whole test suite, notebooks included (GPU=1 PYTEST_ARGS=...)"
	@echo "make lint   ruff check"
	@echo "make bench  every course kernel against the device's ceilings and its peers (GPU=1 BENCH_ARGS=...)"
	@echo "make site   the course's website in $(SITE), the notebooks with their stored GPU outputs (SITE=DIR SITE_ARGS=--repository URL)"
	@echo "make student-release OUT=DIR   a copy of the course without the solutions, for a class"
	@echo "make collect STUDENTS=DIR OUT=DIR   copy each student's exercise files out of their release, for make grade"
	@echo "make grade SUBMISSIONS=DIR     run every checker on every student's work: grades.csv, a gradebook, feedback (POINTS=FILE)"
	@echo "make feedback GRADES=FILE      the gradebook and the feedback again from a grades.csv (POINTS=FILE)"
	@echo "make gradescope OUT=FILE       the zip of a Gradescope autograder, the checkers on the simulator (POINTS=FILE)"
	@echo "make clean  remove build and cache files;  make distclean  also removes $(VENV)"

$(VPY):
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "cuda-course needs Python 3.10 or newer; this is " + sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); \
	  echo "Could not create $(VENV). On Debian/Ubuntu: sudo apt install python3-venv"; exit 1; }

# One stamp per set of extras; re-installs only when pyproject.toml (or the package's
# __init__.py, which changes how the editable install maps it) is newer than the stamp.
# --no-compile: pip would compile the bytecode of every module it installs (JupyterLab's
# dependencies are most of them), 18 of the install's 51 CPU-seconds; Python compiles a module
# when it is first imported instead, and keeps it where bytecode may be written (make test's
# processes: conftest.py); the modules a make test imports took about 3 CPU-seconds.
$(VENV)/.installed-%: pyproject.toml $(wildcard helpers/__init__.py) | $(VPY)
	$(VPY) -m pip install --no-compile -e ".[$(subst -,$(comma),$*)]"
	@touch $@

# The server's root is the repository, so that a notebook's link to its exercise stub in
# cuda_src/exercises/ opens in JupyterLab's editor; the browser opens on the first notebook.
# lab/ holds the course's look of the lab: its extension (labextensions/: .cu and .cuh open as
# C++) and its settings' defaults (settings/overrides.json: no "official Jupyter news?" pop-up
# over the checkers' verdicts); a learner's own settings still override those.
LAB_COMMAND = $(if $(CLASS_SIZE),CUDA_COURSE_CLASS_SIZE=$(CLASS_SIZE) ,)$(VENV)/bin/jupyter lab \
  --ServerApp.root_dir="$(CURDIR)" --LabApp.default_url=/lab/tree/$(FIRST_NOTEBOOK) \
  --LabApp.extra_labextensions_path="$(CURDIR)/lab/labextensions" \
  --LabApp.app_settings_dir="$(CURDIR)/lab/settings" \
  --ip=$(HOST) --port=$(PORT) $(BROWSER_FLAG) $(ALLOW_ROOT) $(LAB_ARGS)

lab: $(VENV)/.installed-lab$(GPU_TAG)
	$(LAB_COMMAND)

# Prints the command make lab runs (tests/exercises/test_lab.py starts the same server).
lab-command:
	@echo '$(LAB_COMMAND)'

# One test file (or notebook) to a worker: a file's module-scoped fixtures are built once, and a
# notebook's cells run in order in one kernel.
test: $(VENV)/.installed-test$(GPU_TAG)
	$(VPY) -m pytest -n $(PYTEST_JOBS) --dist loadscope $(PYTEST_ARGS)

lint: $(VENV)/.installed-test$(GPU_TAG)
	$(VENV)/bin/ruff check .

# Table, CSV and PNG in bench/out/ (see README, "Results").
bench: $(VENV)/.installed-test$(GPU_TAG)
	$(VPY) bench/course_kernels.py $(BENCH_ARGS)

# The course's website, built offline from the notebooks' stored outputs (README, "Website").
site: $(VENV)/.installed-site
	$(VPY) tools/build_site.py $(SITE) $(SITE_ARGS)

# A copy of the course without solutions (README, "For instructors").
student-release: $(VENV)/.installed-test$(GPU_TAG)
	$(VPY) tools/student_release.py $(OUT)

# Each student's exercise files, out of their copy of the release (README, "For instructors").
collect: $(VENV)/.installed-test$(GPU_TAG)
	$(VPY) tools/collect.py $(STUDENTS) $(OUT)

# Every checker on every submission, each in its own process (README, "For instructors").
grade: $(VENV)/.installed-test$(GPU_TAG)
	$(VPY) tools/grade.py $(SUBMISSIONS) $(POINTS_ARG) $(GRADE_ARGS)

# The gradebook and the feedback files again, from a grading run's CSV (new points, say).
feedback: $(VENV)/.installed-test$(GPU_TAG)
	$(VPY) tools/feedback.py $(or $(GRADES),grades.csv) $(POINTS_ARG)

# The zip a Gradescope autograder is configured with (README, "For instructors").
gradescope: $(VENV)/.installed-test$(GPU_TAG)
	$(VPY) tools/gradescope.py build $(or $(OUT),gradescope.zip) $(POINTS_ARG)

clean:
	rm -rf build dist *.egg-info .pytest_cache .ruff_cache
	find . -path ./$(VENV) -prune -o \( -name __pycache__ -o -name .ipynb_checkpoints \) \
	  -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
