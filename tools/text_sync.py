#!/usr/bin/env python3
"""text_sync.py - code and output shown in the lesson READMEs and slides come
from the real sources and from real runs, and no TODO's answer is printed.

    tools/text_sync.py check   [--build-dir DIR] [--only snippets,answers,outputs]
    tools/text_sync.py update  [--build-dir DIR] [FILE.md ...]

`check` fails (exit 1), naming file and line, when:
  snippets  a fenced block tagged  ```cpp snippet=PATH#NAME  differs from the
            region of PATH between `// [snippet: NAME]` and `// [end snippet]`;
            or an untagged code block quotes three or more consecutive lines
            of a lesson's source (tag it, or write the README's own example);
  answers   a line of a solution that its exercise lacks (the answer to a
            TODO) appears verbatim in any README or slide;
  outputs   a block tagged  ```text output  (or  mistake=PATH replace=RE with=TEXT)
            differs from what its `$ ` command lines print when run now
            (compared after the elision rule below); and in a lesson README,
            a plain-text block under "Expected output" or "Common mistakes"
            that is not tagged so, or tagged  by-hand="why no run here can
            produce it"  (an nvcc compile error, a GPU-only message); a
            by-hand block whose reason names a docs/gpu-runs/*.md record
            must be quoted from that record, line for line.
`update` rewrites the tagged blocks from the sources and from fresh runs.

Commands in an output block: `$ [NAME=value ...] ./tutorial run NN ARGS` (the exercise),
`$ ./tutorial solution NN ARGS` (the solution), `$ ./tutorial profile NN ARGS` (the
solution with the emulator's counters on, and the profiler's report), or
`$ bin/nvcc-emu X.cu -o PROG && PROG` (one program built for the emulator),
optionally piped through head, tail, grep or sed. A mistake block runs the solution PATH built with
the one line that the regular expression `replace` matches replaced by `with`
("A >>> B": the first line matching B after the first line matching A)
(JSON strings; "" empties the line; replace2/with2, replace3/with3 for more
lines). The replacement keeps the line count, so reports cite the solution's
own line numbers, under its own path. When the build refuses the mistake
(the emulator checks __device__/__host__ calls as nvcc does), the build's
messages are the output.

Elision rule (docs/lesson-anatomy.md): before comparing, both sides get
  - the repository root (or a mistake's build folder) written as `...`;
  - hexadecimal addresses written as 0x...;
  - a decimal number followed by a unit of time, rate, ratio or machine
    memory (ms, s, us, ns, GB/s, GFLOP/s, million elements/s, x, %, GiB,
    times), and the word faster or slower after such a ratio, or a whole
    number followed by a unit of time or rate (ms, us, ns, GB/s, GFLOP/s, million elements/s, %), written as
    ` #` together with the spaces before it (printf pads numbers to a width),
    and so is every decimal number of a block tagged `timings` (tables of
    measurements);
  - seeds (`seed: N`, `TUTORIAL_SEED=N`) written as N;
  - trailing spaces removed.
Everything else must match exactly.
"""
import argparse
import atexit
import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r'^(\s*)(```+)(.*)$')
REGION_START = re.compile(r'^\s*//\s*\[snippet:\s*([\w.-]+)\]\s*$')
REGION_END = re.compile(r'^\s*//\s*\[end snippet\]\s*$')
CODE_LANGS = {'', 'c', 'cpp', 'c++', 'cu', 'cuda'}
SOURCE_SUFFIXES = {'.c', '.cu', '.cuh', '.cpp', '.h'}


# ---- Markdown: fenced blocks and their tags --------------------------------

class Block:
    def __init__(self, path, start, indent, fence, info, lines):
        self.path, self.start, self.indent, self.fence = path, start, indent, fence
        self.lang, self.attrs = parse_info(info)
        self.lines = lines  # the content, without the fences
        self.heading = ''

    def where(self):
        return f'{self.path.relative_to(ROOT)}:{self.start + 1}'


def parse_info(info):
    """'cpp snippet=a.cu#x with="..."' -> ('cpp', {'snippet': 'a.cu#x', 'with': '...'})"""
    info = info.strip()
    lang, _, rest = info.partition(' ')
    attrs = {}
    pattern = re.compile(r'\s*([\w-]+)(?:=("(?:[^"\\]|\\.)*"|\S+))?')
    pos = 0
    while pos < len(rest):
        m = pattern.match(rest, pos)
        if not m or m.end() == pos:
            break
        key, value = m.group(1), m.group(2)
        if value is None:
            value = True
        elif value.startswith('"'):
            value = json.loads(value)
        attrs[key] = value
        pos = m.end()
    return lang.lower(), attrs


def read_blocks(path):
    lines = path.read_text().split('\n')
    blocks, heading, i = [], '', 0
    while i < len(lines):
        line = lines[i]
        if line.startswith('#'):
            heading = line.lstrip('#').strip()
        m = FENCE.match(line)
        if not m:
            i += 1
            continue
        indent, fence, info = m.groups()
        j = i + 1
        while j < len(lines) and not (lines[j].strip().startswith(fence) and lines[j].strip().strip('`') == ''):
            j += 1
        block = Block(path, i, indent, fence, info, [l[len(indent):] if l.startswith(indent) else l
                                                       for l in lines[i + 1:j]])
        block.heading = heading
        blocks.append(block)
        i = j + 1
    return lines, blocks


def markdown_files():
    files = sorted(ROOT.glob('lessons/*/README.md')) + sorted(ROOT.glob('slides/*.md'))
    return [f for f in files if f.is_file()]


# ---- sources: regions and answers ------------------------------------------

def read_region(spec):
    """'solutions/x/y.cu#name' -> the region's lines, dedented."""
    path_text, _, name = spec.partition('#')
    path = ROOT / path_text
    if not path.is_file():
        raise LookupError(f'no file {path_text}')
    found, inside, depth_other = None, False, 0
    for line in path.read_text().split('\n'):
        start, end = REGION_START.match(line), REGION_END.match(line)
        if inside:
            if start:
                depth_other += 1
                continue
            if end:
                if depth_other == 0:
                    break
                depth_other -= 1
                continue
            found.append(line)
        elif start and start.group(1) == name:
            inside, found = True, []
    if found is None:
        raise LookupError(f'{path_text} has no region // [snippet: {name}]')
    if inside and depth_other:
        raise LookupError(f'{path_text}: region {name} is not closed')
    return dedent(found)


def dedent(lines):
    widths = [len(l) - len(l.lstrip(' ')) for l in lines if l.strip()]
    cut = min(widths) if widths else 0
    return [l[cut:].rstrip() for l in lines]


def lesson_sources():
    for path in sorted(ROOT.glob('lessons/*/*')) + sorted(ROOT.glob('solutions/*/*')):
        if path.suffix in SOURCE_SUFFIXES and path.is_file():
            yield path


def strip_markers(lines):
    return [l for l in lines if not (REGION_START.match(l) or REGION_END.match(l))]


def significant(line):
    """A line worth matching: not blank, not only punctuation, not a comment."""
    text = line.strip()
    if text.startswith('//') or text.startswith('/*') or text.startswith('*'):
        return ''
    text = re.sub(r'\s*//.*$', '', text)
    return ' '.join(text.split()) if len(re.sub(r'[\W_]', '', text)) >= 6 else ''


def answer_lines():
    """(lesson file, line number, text) for every solution line that its
    exercise does not have: the answers to the TODOs."""
    for solution in sorted(ROOT.glob('solutions/*/*')):
        if solution.suffix not in SOURCE_SUFFIXES:
            continue
        exercise = ROOT / 'lessons' / solution.parent.name / solution.name
        if not exercise.is_file():
            continue
        ex, so = exercise.read_text().split('\n'), solution.read_text().split('\n')
        ex_set = {significant(l) for l in ex}
        matcher = difflib.SequenceMatcher(a=ex, b=so, autojunk=False)
        for tag, _, _, j1, j2 in matcher.get_opcodes():
            if tag in ('replace', 'insert'):
                for j in range(j1, j2):
                    text = significant(so[j])
                    if text and text not in ex_set:
                        yield solution, j + 1, text


# ---- running programs ------------------------------------------------------

# Imported CMake targets a lesson may name in LIBRARIES, as linker names.
LIBRARY_OF_TARGET = {'PNG::PNG': 'png', 'ZLIB::ZLIB': 'z'}


def lesson_libraries(folder):
    """-lNAME for each library the lesson's CMakeLists.txt names in
    tutorial_lesson(... LIBRARIES NAME ...), as its own build links them;
    for mpi, the flags of MPI's compiler wrapper (mpicxx --showme)."""
    cmake = folder / 'CMakeLists.txt'
    m = re.search(r'LIBRARIES\s+([^)]*?)\s*(?:MPI_RANKS[^)]*)?\)', cmake.read_text()) if cmake.is_file() else None
    flags = []
    for name in (m.group(1).split() if m else []):
        if name == 'mpi':
            for part in ('compile', 'link'):
                shown = subprocess.run(['mpicxx', '--showme:' + part], capture_output=True, text=True)
                if shown.returncode != 0:
                    raise LookupError('the lesson calls MPI, and mpicxx --showme does not answer here')
                flags += shlex.split(shown.stdout)
        else:
            flags.append('-l' + LIBRARY_OF_TARGET.get(name, name))
    return flags


def lesson_uses_shared(nn):
    """Whether lesson nn's sources use __shared__: ./tutorial run then sets
    CUEMU_CHECK=race, as the tutorial script's race_check_for does."""
    return any('__shared__' in p.read_text() for d in (ROOT / 'lessons').glob(f'{nn}-*')
               for pattern in ('*.cu', '*.cuh') for p in d.glob(pattern))


def lesson_launch(nn, extra_env):
    """What ./tutorial puts before a lesson program that runs as several
    processes (a line "// tutorial: mpirun ranks N" in its source): mpirun
    with N ranks (TUTORIAL_RANKS=N chooses), the emulator devices the source
    names, and Open MPI's settings (run as root, more ranks than cores, quiet
    when a rank fails), as the tutorial script's mpi_launcher_for. Returns
    (command prefix, environment to add); nothing for others."""
    sources = ''.join(p.read_text() for d in (ROOT / 'lessons').glob(f'{nn}-*') for p in d.glob('*.cu'))
    ranks = re.search(r'^// tutorial: mpirun ranks (\d+)$', sources, re.M)
    if not ranks:
        return '', {}
    env = {'OMPI_ALLOW_RUN_AS_ROOT': '1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1',
           'OMPI_MCA_rmaps_base_oversubscribe': '1', 'OMPI_MCA_orte_execute_quiet': '1'}
    devices = re.search(r'^// tutorial: emulator devices (\d+)$', sources, re.M)
    if devices and 'CUEMU_DEVICES' not in extra_env:
        env['CUEMU_DEVICES'] = devices.group(1)
    return f'mpirun -np {int(extra_env.get("TUTORIAL_RANKS", ranks.group(1)))} ', env


class Runner:
    def __init__(self, build_dir):
        self.build = Path(build_dir).resolve()
        self.mistake_dirs = {}
        self.outputs = {}  # (command, mistake) -> its output: a README and its deck often show the same run
        self.scratch = Path(tempfile.mkdtemp(prefix='text-sync-'))
        atexit.register(shutil.rmtree, self.scratch, True)

    def program(self, nn, variant):
        for backend in ('emu', 'cpu'):
            exe = self.build / 'bin' / f'lesson{nn}_{variant}_{backend}'
            if exe.is_file():
                return exe
        raise LookupError(f'lesson{nn}_{variant} is not built in {self.build} (build it first)')

    def mistake_program(self, spec):
        """spec: (solution path, ((regex, text), ...)). Builds the solution
        with each line that regex matches replaced by text (same indent, same
        line count, so fault reports cite the solution's own line numbers)."""
        if spec in self.mistake_dirs:
            return self.mistake_dirs[spec]
        path_text, edits = spec
        source = ROOT / path_text
        if not source.is_file():
            raise LookupError(f'no file {path_text}')
        lines = source.read_text().split('\n')
        for pattern, text in edits:
            # "A >>> B": the first line matching B after the first matching A.
            after, _, pattern = pattern.rpartition(' >>> ')
            start = 0
            if after:
                anchors = [i for i, l in enumerate(lines) if re.search(after, l)]
                if not anchors:
                    raise LookupError(f'mistake: /{after}/ matches no line of {path_text}')
                start = anchors[0]
                first = next((i for i in range(start, len(lines)) if re.search(pattern, lines[i])), None)
                hits = [first] if first is not None else []
            else:
                hits = [i for i, l in enumerate(lines) if re.search(pattern, l)]
            if len(hits) != 1:
                raise LookupError(f'mistake: /{pattern}/ matches {len(hits)} lines of {path_text}, not 1')
            if '\n' in text:
                raise LookupError('mistake: a replacement is one line (line numbers must not move)')
            line = lines[hits[0]]
            lines[hits[0]] = line[:len(line) - len(line.lstrip())] + text if text else ''
        folder = self.scratch / f'mistake{len(self.mistake_dirs)}'
        target = folder / path_text
        target.parent.mkdir(parents=True, exist_ok=True)
        # The lesson's other files come along (a header next to the program,
        # lesson 20's mlp.cuh); a mistake in a header builds the folder's .cu.
        for sibling in source.parent.iterdir():
            if sibling.is_file() and sibling.suffix in ('.cu', '.cuh', '.h'):
                shutil.copy(sibling, target.parent / sibling.name)
        target.write_text('\n'.join(lines))
        program = target
        if target.suffix != '.cu':
            programs = sorted(target.parent.glob('*.cu'))
            if len(programs) != 1:
                raise LookupError(f'mistake: {path_text} is a header and its folder has '
                                  f'{len(programs)} .cu files, not 1')
            program = programs[0]
        exe = folder / 'program'
        env = dict(os.environ, CUEMU_BUILD_DIR=str(self.build))
        # -I the original folder: an include relative to it (lesson 21's
        # "../../solutions/20-training/mlp.cuh") still finds its file.
        # -O1: a mistake runs once, briefly, to show its report; GCC's -O2
        # passes were a third of each build (lesson 20's: 10.4 s against
        # 6.4 s), and these builds were most of the text tests' time. The
        # reports come from line tables and the emulator, the same at -O1
        # (the text tests compare every one with the README).
        result = subprocess.run([str(ROOT / 'bin' / 'nvcc-emu'), str(program), '-o', str(exe), '-O1',
                                 '-I', str(source.parent)] + lesson_libraries(source.parent),
                                env=env, capture_output=True, text=True)
        if result.returncode != 0:
            # A mistake the build refuses: its messages are what to show.
            exe = None
            (folder / 'build.log').write_text(result.stderr)
        self.mistake_dirs[spec] = (exe, folder)
        return exe, folder

    def run_nvcc_emu(self, command, words, filters, extra_env):
        """`bin/nvcc-emu SOURCE.cu -o PROG && PROG [args]`: build a single
        program (lesson 11's gallery) for the emulator and run it."""
        m = re.fullmatch(r'bin/nvcc-emu (\S+\.cu) -o (\S+) && (\S+)((?: \S+)*)', ' '.join(words))
        if not m or m.group(2) != m.group(3):
            raise LookupError(f'cannot run "{command}": expected bin/nvcc-emu X.cu -o PROG && PROG')
        source = ROOT / m.group(1)
        if not source.is_file():
            raise LookupError(f'no file {m.group(1)}')
        exe = self.scratch / f'nvcc-emu-{source.stem}'
        env = dict(os.environ, CUEMU_BUILD_DIR=str(self.build))
        result = subprocess.run([str(ROOT / 'bin' / 'nvcc-emu'), str(source), '-o', str(exe)],
                                env=env, capture_output=True, text=True)
        if result.returncode != 0:
            raise LookupError(f'building {m.group(1)} failed:\n{result.stderr[-2000:]}')
        line = 'stdbuf -oL ' + shlex.quote(str(exe)) + m.group(4) + ' 2>&1'
        if filters.strip():
            line += ' | ' + filters.strip()
        env = dict(os.environ, CUEMU_WORKERS='2', TUTORIAL_SEED='1')
        env.update(extra_env)
        out = subprocess.run(['bash', '-c', line], env=env, capture_output=True, text=True,
                             cwd=str(ROOT), timeout=300).stdout
        out = out.replace(str(ROOT) + '/', '.../')
        return out.rstrip('\n').split('\n') if out.strip() else []

    def profile_line(self, nn, exe, args):
        """`./tutorial profile NN [flags] [--gpu-model NAME]`, as the tutorial
        script runs it (cmd_profile): the solution (or a mistake) with the
        emulator's counters on, then tools/profile_report.py on its profile.
        The pictures go to a scratch folder, printed as results/profile-NN."""
        model, flags = 'H100', []
        while args:
            word = args.pop(0)
            if word == '--gpu-model' and args:
                model = args.pop(0)
            elif word.startswith('--gpu-model='):
                model = word.partition('=')[2]
            else:
                flags.append(word)
        q = shlex.quote
        if '--gpu' in flags:  # the script itself answers: the ncu command for a GPU
            return (f'TUTORIAL_BUILD_DIR={q(str(self.build))} TUTORIAL_NO_INSTALL=1 '
                    f'{q(str(ROOT / "tutorial"))} profile {q(nn)} '
                    + ' '.join(q(w) for w in flags) + ' 2>&1'
                    + f' | sed "s|{self.build}/|build/|g"')
        out = self.scratch / f'profile-{nn}-{len(list(self.scratch.glob("profile-*")))}'
        out.mkdir(parents=True)
        lesson = next((d.name for d in (ROOT / 'lessons').glob(f'{nn}-*') if d.is_dir()), nn)
        csv = out / 'profile.csv'
        # In braces: the block's filters (| sed ...) take the whole output.
        return (f'{{ echo "== lessons/{lesson}\'s solution on the emulator, counters on, GPU model {model} =="; '
                f'CUEMU_PROFILE={q(str(csv))} CUEMU_GPU={q(model)} stdbuf -oL '
                + ' '.join(q(w) for w in [str(exe)] + flags)
                + f' 2>&1 && echo && python3 {q(str(ROOT / "tools" / "profile_report.py"))} {q(str(csv))} '
                f'--gpu-model {q(model)} --out {q(str(out))} | sed "s|{out}|results/profile-{nn}|g"; }}')

    def run(self, command, mistake=None):
        """Runs one `$ ./tutorial run|solution NN args | filters` line, once
        however many blocks show it."""
        key = (command, mistake)
        if key not in self.outputs:
            self.outputs[key] = self.run_once(command, mistake)
        return list(self.outputs[key])

    def run_once(self, command, mistake):
        head, _, filters = command.partition('|')
        words = shlex.split(head)
        extra_env = {}
        while words and re.fullmatch(r'[A-Z_][A-Z0-9_]*=\S*', words[0]):  # NAME=value ./tutorial ...
            name, _, value = words.pop(0).partition('=')
            extra_env[name] = value
        if words[:1] == ['bin/nvcc-emu']:
            return self.run_nvcc_emu(command, words, filters, extra_env)
        if len(words) < 3 or words[0] != './tutorial' or words[1] not in ('run', 'solution', 'profile'):
            raise LookupError(f'cannot run "{command}": expected ./tutorial run|solution|profile NN ...')
        nn = words[2]
        if words[1] == 'run' and 'CUEMU_CHECK' not in extra_env and lesson_uses_shared(nn):
            extra_env['CUEMU_CHECK'] = 'race'  # as the tutorial script's race_check_for
        roots = [str(ROOT)]
        if mistake:
            exe, folder = self.mistake_program(mistake)
            roots.insert(0, str(folder))
        else:
            exe = self.program(nn, 'exercise' if words[1] == 'run' else 'solution')
        if exe is None:  # the build failed: show its messages
            line = 'cat ' + shlex.quote(str(folder / 'build.log'))
        elif words[1] == 'profile':
            line = self.profile_line(nn, exe, words[3:])
        else:
            # stdbuf: stdout line by line, as in a terminal, so the program's lines and the
            # emulator's reports (stderr) come out in the order a student sees them.
            launch, launch_env = lesson_launch(nn, extra_env)
            extra_env = dict(launch_env, **extra_env)
            line = (launch + 'stdbuf -oL ' + ' '.join(shlex.quote(w) for w in [str(exe)] + words[3:])
                    + ' 2>&1')
        if filters.strip():
            line += ' | ' + filters.strip()
        env = dict(os.environ, CUEMU_WORKERS='2', TUTORIAL_SEED='1')
        env.update(extra_env)
        result = subprocess.run(['bash', '-c', line], env=env, capture_output=True, text=True,
                                cwd=str(ROOT), timeout=300)
        text = result.stdout
        for root in roots:
            text = text.replace(root + '/', '.../')
        return text.rstrip('\n').split('\n') if text.strip() else []


# ---- the elision rule ------------------------------------------------------

UNIT = r'(?:ms|s|us|µs|ns|GB/s|GFLOP/s|million elements/s|M elements/s|GiB|x|%|times)'
# Units that follow whole numbers too (an integer count of them is still a measurement).
RATE = r'(?:ms|us|µs|ns|GB/s|GFLOP/s|million elements/s|M elements/s|%)'


def elide(lines, timings=False):
    out = []
    for line in lines:
        line = re.sub(r'0x[0-9a-fA-F]+', '0x...', line)
        line = re.sub(r'(seed:? |TUTORIAL_SEED=)\d+', r'\1N', line)
        # A measurement and the padding before it (a printf width) become " #".
        line = re.sub(r'\s*-?\d+\.\d+(?:e[+-]?\d+)?(\s?' + UNIT + r')(?![\w/])', r' #\1', line)
        # (A whole number only: never the digits after a decimal point.)
        line = re.sub(r'\s*(?<![\d.])\d+(\s?' + RATE + r')(?![\w/])', r' #\1', line)
        if timings:
            line = re.sub(r'\s*-?\d+\.\d+(?:e[+-]?\d+)?', ' #', line)
        # Which of two timed things won is a measurement too.
        line = re.sub(r'# times (faster|slower)', '# times faster/slower', line)
        out.append(line.rstrip())
    while out and not out[-1]:
        out.pop()
    return out


# ---- the checks ------------------------------------------------------------

QUOTE_LINES = 3  # this many consecutive significant lines of a source make a quote


def source_windows():
    """(QUOTE_LINES significant lines in a row) -> where, over every lesson source."""
    windows = {}
    for path in lesson_sources():
        sig = [(i, significant(l)) for i, l in enumerate(strip_markers(path.read_text().split('\n')))]
        sig = [(i, s) for i, s in sig if s]
        for k in range(len(sig) - QUOTE_LINES + 1):
            key = tuple(s for _, s in sig[k:k + QUOTE_LINES])
            windows.setdefault(key, f'{path.relative_to(ROOT)}:{sig[k][0] + 1}')
    return windows


def check_snippets(files, errors, update):
    windows = source_windows()
    changed = {}
    for path in files:
        lines, blocks = read_blocks(path)
        for block in blocks:
            spec = block.attrs.get('snippet')
            if spec:
                try:
                    region = read_region(spec)
                except LookupError as e:
                    errors.append(f'{block.where()}: {e}')
                    continue
                if block.lines != region:
                    if update:
                        changed.setdefault(path, []).append((block, region))
                    else:
                        diff = '\n'.join(difflib.unified_diff(region, block.lines, spec, 'shown', lineterm='', n=1))
                        errors.append(f'{block.where()}: differs from {spec}; run tools/text_sync.py update\n{diff}')
                continue
            if block.lang not in CODE_LANGS or 'output' in block.attrs or 'mistake' in block.attrs:
                continue
            sig = [significant(l) for l in block.lines]
            sig = [s for s in sig if s]
            for k in range(len(sig) - QUOTE_LINES + 1):
                key = tuple(sig[k:k + QUOTE_LINES])
                if key in windows:
                    errors.append(f'{block.where()}: quotes {windows[key]} ("{key[0]}") but is not tagged '
                                  f'snippet=PATH#NAME: show a marked region, or write your own example')
                    break
    return changed


def lesson_number(path):
    """'NN' of lessons/NN-x/..., solutions/NN-x/..., slides/NN-x.md; None otherwise."""
    m = re.match(r'(\d\d)-', path.parent.name if path.parent.name[:2].isdigit() else path.name)
    return m.group(1) if m else None


def check_answers(files, errors):
    # Lesson NN's answers must not appear in the material of lesson NN or an
    # earlier one (nor in the top README): later lessons build on them. An
    # answer that is a bare call with no arguments (`__syncthreads();`) is
    # exempt: its answer is where it goes, which no line check can see, and
    # the lesson must name it to teach it.
    answers = [a for a in answer_lines() if not re.fullmatch(r'[\w:]+\(\);', a[2])]
    # The top README and the notebooks beside it (start-here.ipynb) come before every lesson.
    for path in files + sorted(ROOT.glob('README.md')) + sorted(ROOT.glob('*.ipynb')):
        shown_in = lesson_number(path)
        for number, line in enumerate(path.read_text().split('\n'), 1):
            shown = ' '.join(line.split())
            for solution, sol_line, text in answers:
                if shown_in and lesson_number(solution) < shown_in:
                    continue
                if text in shown:
                    errors.append(f'{path.relative_to(ROOT)}:{number}: prints the answer to a TODO, '
                                  f'{solution.relative_to(ROOT)}:{sol_line}: "{text}"')


def check_outputs(files, errors, runner, update):
    changed = {}
    for path in files:
        _, blocks = read_blocks(path)
        is_readme = path.name == 'README.md'
        for block in blocks:
            tagged = 'output' in block.attrs or 'mistake' in block.attrs
            if 'by-hand' in block.attrs:
                # It says why no run here can produce it (an nvcc error, a GPU). A
                # GPU's output names its record in docs/gpu-runs/, and must be
                # quoted from it, line for line.
                record = re.search(r'docs/gpu-runs/[\w.-]+\.md', block.attrs['by-hand'])
                if record:
                    text = (ROOT / record.group(0)).read_text() if (ROOT / record.group(0)).is_file() else None
                    quoted = '\n'.join(block.lines)
                    if text is None:
                        errors.append(f'{block.where()}: names {record.group(0)}, which does not exist')
                    elif quoted not in text:
                        errors.append(f'{block.where()}: not quoted line for line from {record.group(0)}')
                continue
            if not tagged:
                if (is_readme and block.lang in ('', 'text', 'console')
                        and re.search(r'expected output|common mistakes', block.heading, re.I)):
                    errors.append(f'{block.where()}: a block under "{block.heading}" that no run '
                                  f'produces: tag it ```text output (with $ command lines)')
                continue
            mistake = None
            if 'mistake' in block.attrs:
                edits = []
                for suffix in ('', '2', '3'):
                    if 'replace' + suffix in block.attrs:
                        edits.append((block.attrs['replace' + suffix], block.attrs.get('with' + suffix, '')))
                mistake = (block.attrs['mistake'], tuple(edits))
            produced, commands = [], 0
            try:
                for line in block.lines:
                    if line.startswith('$ '):
                        commands += 1
                        produced.append(line)
                        produced += runner.run(line[2:], mistake)
            except (LookupError, subprocess.TimeoutExpired) as e:
                errors.append(f'{block.where()}: {e}')
                continue
            if commands == 0:
                errors.append(f'{block.where()}: an output block needs "$ ./tutorial ..." command lines')
                continue
            timings = bool(block.attrs.get('timings'))
            if elide(block.lines, timings) != elide(produced, timings):
                if update:
                    changed.setdefault(path, []).append((block, [l.rstrip() for l in produced]))
                else:
                    diff = '\n'.join(difflib.unified_diff(elide(produced, timings), elide(block.lines, timings),
                                                          'a run now', 'shown', lineterm='', n=2))
                    errors.append(f'{block.where()}: differs from a run now (after the elision rule); '
                                  f'run tools/text_sync.py update\n{diff}')
    return changed


def apply(changes):
    for path, items in changes.items():
        lines = path.read_text().split('\n')
        for block, new in sorted(items, key=lambda item: -item[0].start):
            end = block.start + 1 + len(block.lines)
            lines[block.start + 1:end] = [block.indent + l if l else l for l in new]
        path.write_text('\n'.join(lines))
        print(f'updated {path.relative_to(ROOT)} ({len(items)} block(s))')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('mode', choices=['check', 'update'])
    parser.add_argument('files', nargs='*')
    parser.add_argument('--build-dir', default=os.environ.get('TUTORIAL_BUILD_DIR', str(ROOT / 'build')))
    parser.add_argument('--only', default='snippets,answers,outputs')
    args = parser.parse_intermixed_args()
    kinds = set(args.only.split(','))
    files = [Path(f).resolve() for f in args.files] if args.files else markdown_files()
    errors = []
    update = args.mode == 'update'
    if 'snippets' in kinds:
        changes = check_snippets(files, errors, update)
        if update:
            apply(changes)
    if 'answers' in kinds:
        check_answers(files, errors)
    if 'outputs' in kinds:
        changes = check_outputs(files, errors, Runner(args.build_dir), update)
        if update:
            apply(changes)
    for e in errors:
        print(e)
    if errors:
        print(f'text_sync: {len(errors)} problem(s)')
        return 1
    print(f'text_sync: {", ".join(sorted(kinds))}: {len(files)} file(s) agree with the code')
    return 0


if __name__ == '__main__':
    sys.exit(main())
