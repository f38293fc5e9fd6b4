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
html_static_path = ['_static']
html_css_files = ['zsmod.css']
html_theme_options = {
    'description': 'zsmalloc on the zpdesc memory descriptor',
    'page_width': '1160px',
    'sidebar_width': '250px',
}


# --- bench results ---------------------------------------------------------
# ``.. zsmod-bench-results::`` shows bench/results/results.md and its PNGs
# when `make bench` has produced them, and a note saying how to produce them
# otherwise, so that the build never depends on benchmark output. The
# Markdown that bench/report.py writes (headings, paragraphs, fenced blocks,
# pipe tables, images, lists) is turned into reStructuredText here; should
# plain docutils (run in a separate process, away from Sphinx's directive
# registry) find anything to complain about in the result, the file is
# shown as text instead, so a change of the report cannot break the build.
# PNGs that results.md does not show are added as figures at the end.

import re

from docutils import nodes as _nodes
from docutils.parsers.rst import Directive as _Directive
from docutils.statemachine import ViewList as _ViewList
from sphinx.util.nodes import nested_parse_with_titles as _nested_parse

bench_results_dir = os.environ.get('ZSMOD_BENCH_RESULTS',
                                   os.path.join(top, 'bench', 'results'))

_RST_SPECIAL = re.compile(r'([\\`*_|<>\[\]])')


def _md_inline(text):
    """Markdown inline text as RST: `code` and **bold** kept, rest escaped."""
    out = []
    for i, part in enumerate(re.split(r'(`[^`]+`)', text)):
        if i % 2:
            out.append('``' + part[1:-1] + '`` ')
            continue
        for j, piece in enumerate(re.split(r'(\*\*[^*]+\*\*)', part)):
            if j % 2:
                out.append('**' + _RST_SPECIAL.sub(r'\\\1', piece[2:-2]) +
                           '**')
            else:
                out.append(_RST_SPECIAL.sub(r'\\\1', piece))
    # ``x`` must be followed by a space or punctuation: drop the helper
    # space again before punctuation, and escape-join before letters
    text = ''.join(out)
    text = re.sub(r'`` ([.,;:!?)\]}\'"]|$)', r'``\1', text)
    text = re.sub(r'`` (?=\S)', r'``\\ ', text)
    return text


def md_to_rst(md, reldir, keep_title=False):
    """The Markdown subset of bench/report.py as reStructuredText lines.

    The first-level heading is dropped (the page has its own title) unless
    keep_title, which makes it a section of the results.
    """
    underline = {1: '-', 2: '~', 3: '^', 4: '"'} if keep_title else \
        {2: '-', 3: '~', 4: '^'}
    lines = md.split('\n')
    rst, images, i = [], [], 0
    while i < len(lines):
        line = lines[i]
        heading = re.match(r'^(#{1,4})\s+(.*)$', line)
        image = re.match(r'^!\[([^]]*)\]\(([^)]+)\)\s*$', line)
        item = re.match(r'^(\s*)([-*]|\d+\.)\s+(.*)$', line)
        if line.startswith('```'):
            rst += ['', '.. code-block:: none', '']
            i += 1
            while i < len(lines) and not lines[i].startswith('```'):
                rst.append('   ' + lines[i])
                i += 1
            rst.append('')
        elif heading:
            level, title = len(heading.group(1)), _md_inline(heading.group(2))
            if level in underline:
                rst += ['', title, underline[level] * len(title), '']
        elif line.startswith('|'):
            rows = []
            while i < len(lines) and lines[i].startswith('|'):
                cells = [c.strip() for c in
                         lines[i].strip().strip('|').split('|')]
                if not all(re.match(r'^:?-+:?$', c) for c in cells):
                    rows.append(cells)
                i += 1
            i -= 1
            width = max(len(r) for r in rows)
            rst += ['', '.. list-table::', '   :header-rows: 1', '']
            for r in rows:
                r += [''] * (width - len(r))
                for k, c in enumerate(r):
                    rst.append(('   * - ' if k == 0 else '     - ') +
                               _md_inline(c))
            rst.append('')
        elif image:
            images.append(image.group(2))
            rst += ['', '.. figure:: ' + os.path.join(reldir, image.group(2)),
                    '   :width: 100%', '', '   ' + _md_inline(image.group(1)),
                    '']
        elif item:
            bullet = '* ' if item.group(2) in '-*' else '#. '
            rst.append(item.group(1) + bullet + _md_inline(item.group(3)))
        else:
            rst.append(_md_inline(line))
        i += 1
    return rst, images


_CHECK = r'''
import io, re, sys
from docutils.core import publish_doctree
text = sys.stdin.read()
text = text.replace('.. code-block:: none', '.. code::')
text = re.sub(r'\.\. figure:: .*', '.. figure:: x.png', text)
err = io.StringIO()
publish_doctree(text, settings_overrides={
    'warning_stream': err, 'report_level': 2, 'halt_level': 5,
    'file_insertion_enabled': False, 'raw_enabled': False})
sys.stdout.write(err.getvalue())
'''


def _rst_is_clean(rst_lines):
    """Does plain docutils parse these lines without a warning?"""
    try:
        res = subprocess.run([sys.executable, '-c', _CHECK], input='\n'.join(
            rst_lines), capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return res.returncode == 0 and not res.stdout.strip()


class BenchResults(_Directive):
    has_content = False

    def run(self):
        env = self.state.document.settings.env
        docdir = os.path.dirname(env.doc2path(env.docname))
        reldir = os.path.relpath(bench_results_dir, docdir)
        md = os.path.join(bench_results_dir, 'results.md')
        pngs = sorted(f for f in os.listdir(bench_results_dir)
                      if f.endswith('.png')) \
            if os.path.isdir(bench_results_dir) else []
        lines, shown = [], []
        if os.path.isfile(md):
            env.note_dependency(md)
            with open(md, encoding='utf-8') as f:
                rst, shown = md_to_rst(f.read(), reldir)
            if _rst_is_clean(rst):
                lines += ['The latest ``bench/results/results.md``, as '
                          'written by ``bench/report.py``:', ''] + rst
            else:
                shown = []
                lines += ['The latest ``bench/results/results.md`` (shown as '
                          'text):', '',
                          '.. literalinclude:: ' +
                          os.path.join(reldir, 'results.md'),
                          '   :language: none', '']
        # other reports (bench/history.sh's history.md), each a section
        others = sorted(f for f in os.listdir(bench_results_dir)
                        if f.endswith('.md') and f != 'results.md') \
            if os.path.isdir(bench_results_dir) else []
        for name in others:
            path = os.path.join(bench_results_dir, name)
            env.note_dependency(path)
            with open(path, encoding='utf-8') as f:
                rst, imgs = md_to_rst(f.read(), reldir, keep_title=True)
            if _rst_is_clean(rst):
                lines += [''] + rst
                shown += imgs
            else:
                title = '``bench/results/' + name + '``'
                lines += ['', title, '-' * len(title), '',
                          '.. literalinclude:: ' + os.path.join(reldir, name),
                          '   :language: none', '']
        for png in pngs:
            env.note_dependency(os.path.join(bench_results_dir, png))
            if png in shown:
                continue
            lines += ['', '.. figure:: ' + os.path.join(reldir, png),
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


def setup(app):
    app.add_directive('zsmod-bench-results', BenchResults)
    return {'parallel_read_safe': True}
