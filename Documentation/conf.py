# SPDX-License-Identifier: GPL-2.0
#
# Sphinx configuration for the zsmalloc_mod documentation.
#
# Build with `make docs` (scripts/docs.sh). The kernel-doc extension is not
# copied into this repository: it is loaded from the pristine
# linux-source-6.12 tree that vm/source.sh extracts, whose path
# scripts/docs.sh passes in the environment as ZSMOD_KSRC.

import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(here)

ksrc = os.environ.get('ZSMOD_KSRC')
if not ksrc:
    ksrc = subprocess.run([os.path.join(top, 'vm', 'source.sh')],
                          check=True, capture_output=True,
                          text=True).stdout.strip()
sys.path.insert(0, os.path.join(ksrc, 'Documentation', 'sphinx'))

project = 'zsmalloc_mod'
author = 'zsmalloc_mod developers'
copyright = 'zsmalloc_mod developers; GPL-2.0'
version = release = os.environ.get('ZSMOD_VERSION', '')

extensions = ['kerneldoc']

# kernel-doc: the script of the same kernel tree, run on our sources.
kerneldoc_bin = os.path.join(ksrc, 'scripts', 'kernel-doc')
kerneldoc_srctree = top
kerneldoc_verbosity = 0

primary_domain = 'c'
highlight_language = 'none'

# Kernel annotations that Sphinx's C parser does not know (a subset of the
# kernel's own Documentation/conf.py list: those our headers use).
c_id_attributes = [
    '__init', '__exit', '__always_inline', '__must_check', '__maybe_unused',
    '__acquires', '__releases', '__user', '__percpu', '__rcu', '__iomem',
]

master_doc = 'index'
exclude_patterns = ['output', 'Thumbs.db', '.DS_Store']
source_suffix = '.rst'
language = 'en'

html_theme = 'alabaster'
html_title = 'zsmalloc_mod documentation'
html_static_path = ['_static']
html_css_files = ['zsmod.css']
html_theme_options = {
    'description': 'zsmalloc on the zpdesc memory descriptor',
    'page_width': '1160px',
    'sidebar_width': '250px',
}

