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

import sphinx

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

extensions = ['kerneldoc', 'sphinx.ext.ifconfig']

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
html_static_path = []
html_theme_options = {
    'description': 'zsmalloc on the zpdesc memory descriptor',
    'page_width': '1100px',
}


# --- bench results ---------------------------------------------------------
# ``.. zsmod-bench-results::`` shows bench/results/results.md (as text) and
# every bench/results/*.png when `make bench` has produced them, and a note
# saying how to produce them otherwise, so that the build never depends on
# benchmark output being present.

from docutils import nodes as _nodes
from docutils.parsers.rst import Directive as _Directive
from docutils.statemachine import ViewList as _ViewList
from sphinx.util.nodes import nested_parse_with_titles as _nested_parse

bench_results_dir = os.environ.get('ZSMOD_BENCH_RESULTS',
                                   os.path.join(top, 'bench', 'results'))


class BenchResults(_Directive):
    has_content = False

    def run(self):
        env = self.state.document.settings.env
        md = os.path.join(bench_results_dir, 'results.md')
        pngs = sorted(f for f in os.listdir(bench_results_dir)
                      if f.endswith('.png')) \
            if os.path.isdir(bench_results_dir) else []
        docdir = os.path.dirname(env.doc2path(env.docname))
        rel = lambda p: os.path.relpath(p, docdir)
        lines = []
        if os.path.isfile(md):
            env.note_dependency(md)
            lines += ['The latest results, ``bench/results/results.md``:', '',
                      '.. literalinclude:: ' + rel(md),
                      '   :language: none', '']
        for png in pngs:
            env.note_dependency(os.path.join(bench_results_dir, png))
            lines += ['.. figure:: ' + rel(os.path.join(bench_results_dir, png)),
                      '   :width: 100%', '',
                      '   ``bench/results/' + png + '``', '']
        if not lines:
            lines = ['No results have been committed yet: ``make bench`` '
                     'writes them to ``bench/results/``.', '']
        result = _ViewList()
        src = env.doc2path(env.docname)
        for i, line in enumerate(lines):
            result.append(line, src, self.lineno + i)
        node = _nodes.section()
        node.document = self.state.document
        _nested_parse(self.state, result, node)
        return node.children


# ``.. zsmod-locking-comment::`` quotes the "Locking" part of the comment
# at the top of zsmalloc_mod.c at build time, so the documented lock order
# is always the code's. The block runs from the line " * Locking..." to the
# end of the comment, less a last paragraph about zpdesc.h.


class LockingComment(_Directive):
    has_content = False

    def run(self):
        env = self.state.document.settings.env
        path = os.path.join(top, 'zsmalloc_mod.c')
        env.note_dependency(path)
        lines = open(path, encoding='utf-8').read().split('\n')
        try:
            start = next(i for i, l in enumerate(lines)
                         if l.startswith(' * Locking'))
            end = next(i for i in range(start, len(lines))
                       if lines[i].startswith(' */'))
        except StopIteration:
            msg = 'zsmalloc_mod.c: no " * Locking" block in the top comment'
            return [self.state.document.reporter.warning(msg,
                                                         line=self.lineno)]
        body = [l[3:] if l.startswith(' * ') else l[2:] for l in
                lines[start + 1:end]]
        while body and not body[0].strip():
            body.pop(0)
        # drop a last paragraph about zpdesc.h, which is not about locking
        paras = '\n'.join(body).rstrip().split('\n\n')
        if paras and 'zpdesc.h' in paras[-1]:
            paras.pop()
        text = '\n\n'.join(paras).expandtabs(8)
        node = _nodes.literal_block(text, text)
        node['language'] = 'none'
        return [node]


def setup(app):
    app.add_directive('zsmod-bench-results', BenchResults)
    app.add_directive('zsmod-locking-comment', LockingComment)
    return {'parallel_read_safe': True}
