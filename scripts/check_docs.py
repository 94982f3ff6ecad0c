#!/usr/bin/env python3
"""Checks that Fleet's documentation citations and contributor map hold.

  scripts/check_docs.py [--root DIR] [--verbose]

1. Citations. Every `.md` file named in a source, test, script or doc file
   (`docs/design.md`, `docs/design.md §3`, `docs/ir-reference.md "Devices"`,
   `docs/build.md pitfall 9`, markdown links `[x](guide.md#anchor)`) must
   exist, and what it cites inside that file must be there:
   - `§N` / `§N.M`: a heading numbered so (`## 3. Title`, `### 3.2 Title`);
   - a quoted name: a heading (or a `**bold**` label) with that text;
   - `pitfall N`: item N of a numbered list under a "Pitfalls" heading;
   - `#anchor`: the GitHub anchor of a heading.
   A path with a `/` is relative to the repository root or to the citing
   file; a bare name is relative to the citing file's directory (so code
   must write `docs/design.md`, docs may write `design.md`). A `§N` in a doc
   that follows no file name cites that doc's own headings.
2. Contributor map. Every pass Fleet registers (`def X : Pass<"flag", ...>`
   in a Passes.td under include/, and every `PassPipelineRegistration` under
   lib/) must have a row in a table of docs/contributing.md whose first cell
   is `--flag`; its source cell must be the lib/ file that defines
   GEN_PASS_DEF_<X> (for pipelines: the file registering it), and its test
   cell must name existing test files, one of whose RUN lines uses the flag
   (for pipelines: the flag or fleet-compile). A row for a flag Fleet does
   not register is an error, and so is any backquoted repository path in
   docs/contributing.md that does not exist.
3. Index. docs/README.md links every other .md file of docs/.

Files containing the text `check-docs: ignore-file` are not scanned. Prints
one line per problem and a summary; exit code 1 when there is a problem.
Python standard library only.
"""

import argparse
import os
import re
import subprocess
import sys

SCANNED_DIRS = ("bench", "cmake", "docs", "include", "lib", "runtime",
                "samples", "scripts", "test", "tools", "unittests")
SCANNED_TOP_FILES = ("CMakeLists.txt", "Makefile", "README.md")
IGNORE_MARKER = "check-docs: ignore-file"

# A file name ending in .md, not part of a longer path or word.
MD_REF = re.compile(r"(?<![\w/.#-])((?:\.\.?/)*(?:[\w.-]+/)*[\w.-]+\.md)\b")
# What may follow a citation: sections, quoted names, pitfalls.
SECTION_LIST = re.compile(
    r"(?:\)|\])?\s*(?:,\s*)?§\s?(\d+(?:\.\d+)*)((?:\s*(?:,|–|-|and|to)\s*§\s?\d+(?:\.\d+)*)*)")
SECTION_NUM = re.compile(r"§\s?(\d+(?:\.\d+)*)")
QUOTED_LIST = re.compile(
    r"\s*(?:,|\()?\s*(?:sections?\s+)?\(?(\"[^\"\n]{1,60}\"(?:\s*(?:and|/|,)\s*\"[^\"\n]{1,60}\")*)")
QUOTED = re.compile(r"\"([^\"\n]+)\"")
PITFALL = re.compile(r"\s*(?:,\s*)?(?:pitfalls?|#)\s?(\d+)")
MD_LINK = re.compile(r"\]\(([^)\s]+?\.md)(#[^)\s]*)?\)")
BARE_SECTION = re.compile(r"(?<![\w.])§\s?(\d+(?:\.\d+)*)")
# "§3 of [design.md](design.md)", "§3 of docs/design.md".
SECTION_OF = re.compile(r"\s+(?:of|in)\s+(?:\[[^\]\n]*\]\()?((?:[\w.-]+/)*[\w.-]+\.md)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
NUMBERED_HEADING = re.compile(r"^(\d+(?:\.\d+)*)\.?(?:\s|$)")
BOLD_LABEL = re.compile(r"\*\*([^*\n]+?)\*\*")
PASS_DEF = re.compile(r"\bdef\s+(\w+)\s*:\s*Pass<\s*\"([\w-]+)\"", re.S)
PIPELINE_DEF = re.compile(r"PassPipelineRegistration<[^>]*>\s*\(\s*\"([\w-]+)\"",
                          re.S)
# A line break plus the comment leader of the next line (//, ///, #, *).
CONTINUATION = re.compile(r"[ \t]*\n[ \t]*(?:///?|#|\*)?[ \t]*")


class Problems:
    def __init__(self):
        self.items = []

    def add(self, where, message):
        item = f"{where}: {message}"
        if item not in self.items:
            self.items.append(item)


def list_files(root):
    """Tracked files when `root` is a git checkout, else every file."""
    paths = []
    if os.path.isdir(os.path.join(root, ".git")):
        try:
            out = subprocess.run(["git", "-C", root, "ls-files", "-z"],
                                 check=True, capture_output=True).stdout
            paths = [p for p in out.decode().split("\0") if p]
        except (OSError, subprocess.CalledProcessError):
            paths = []
    if not paths:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames
                           if not d.startswith(".") and not d.startswith("build")]
            for name in filenames:
                paths.append(os.path.relpath(os.path.join(dirpath, name), root))
    keep = []
    for p in sorted(paths):
        p = p.replace(os.sep, "/")
        top = p.split("/", 1)[0]
        if ("/" in p and top in SCANNED_DIRS) or p in SCANNED_TOP_FILES:
            if os.path.isfile(os.path.join(root, p)):
                keep.append(p)
    return keep


def read_text(root, rel):
    try:
        with open(os.path.join(root, rel), "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data[:4096]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def normalize(text):
    text = text.replace("`", "").replace("**", "").strip().lower()
    return re.sub(r"\s+", " ", text).rstrip(" .:")


def github_anchor(heading):
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


class Doc:
    """Headings and other targets of one markdown file."""

    def __init__(self, text):
        self.sections = set()
        self.names = set()
        self.anchors = set()
        self.pitfalls = set()
        in_pitfalls = False
        in_code = False
        for line in text.split("\n"):
            if line.lstrip().startswith("```"):
                in_code = not in_code
                continue
            if in_code:
                continue
            m = HEADING.match(line)
            if m:
                title = m.group(2)
                self.names.add(normalize(title))
                self.anchors.add(github_anchor(title))
                n = NUMBERED_HEADING.match(title)
                if n:
                    self.sections.add(n.group(1))
                    self.names.add(normalize(title[n.end():]))
                in_pitfalls = "pitfall" in title.lower()
                continue
            for label in BOLD_LABEL.findall(line):
                self.names.add(normalize(label))
            item = re.match(r"^(\d+)\.\s", line)
            if in_pitfalls and item:
                self.pitfalls.add(item.group(1))

    def has_name(self, name):
        want = normalize(name)
        if want in self.names:
            return True
        # A heading may go on after the cited words ("Devices (queue ops)").
        return any(n.startswith(want + " ") or n.startswith(want + " (")
                   for n in self.names)


class Checker:
    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.problems = Problems()
        self.docs = {}
        self.citations = 0
        self.section_refs = 0
        self.name_refs = 0

    def doc(self, rel):
        if rel not in self.docs:
            text = read_text(self.root, rel)
            self.docs[rel] = Doc(text) if text is not None else None
        return self.docs[rel]

    def resolve(self, citing, ref):
        """The repository-relative path `ref` names from `citing`, or None."""
        base = os.path.dirname(citing)
        candidates = []
        if "/" in ref and not ref.startswith("."):
            candidates.append(ref)
        candidates.append(os.path.normpath(os.path.join(base, ref)))
        for c in candidates:
            c = c.replace(os.sep, "/")
            if not c.startswith("..") and os.path.isfile(os.path.join(self.root, c)):
                return c
        return None

    # -- citations ----------------------------------------------------------

    def check_citations(self, files):
        for rel in files:
            text = read_text(self.root, rel)
            if text is None or IGNORE_MARKER in text:
                continue
            self.check_file(rel, text)

    def check_file(self, rel, text):
        # Join continued comment lines so `docs/design.md` at a line's end
        # still sees the `§3` that starts the next one.
        joined, starts = [], []
        pos = 0
        line_of = []  # joined offset -> line number, by runs
        line = 1
        for m in CONTINUATION.finditer(text):
            chunk = text[pos:m.start()]
            starts.append((len("".join(joined)), line))
            joined.append(chunk + " ")
            line += 1
            pos = m.end()
        starts.append((len("".join(joined)), line))
        joined.append(text[pos:])
        joined = "".join(joined)

        def line_at(offset):
            lo, hi = 0, len(starts) - 1
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if starts[mid][0] <= offset:
                    lo = mid
                else:
                    hi = mid - 1
            return starts[lo][1]

        is_md = rel.endswith(".md")
        cited_spans = []
        for m in MD_REF.finditer(joined):
            ref = m.group(1)
            where = f"{rel}:{line_at(m.start())}"
            self.citations += 1
            target = self.resolve(rel, ref)
            tail = joined[m.end():m.end() + 200]
            # A `§N` right after the name belongs to this citation, not to
            # the citing doc.
            s = SECTION_LIST.match(tail)
            cited_spans.append((m.start(), m.end() + (s.end() if s else 0) + 1))
            if target is None:
                self.problems.add(where, f"cites {ref}, which does not exist")
                continue
            if not target.endswith(".md"):
                continue
            doc = self.doc(target)
            if doc is None:
                continue
            if s:
                for num in [s.group(1)] + SECTION_NUM.findall(s.group(2)):
                    self.section_refs += 1
                    if num not in doc.sections:
                        self.problems.add(
                            where, f"cites {ref} §{num}; {target} has no "
                            f"heading numbered {num}")
            else:
                q = QUOTED_LIST.match(tail)
                if q:
                    for name in QUOTED.findall(q.group(1)):
                        self.name_refs += 1
                        if not doc.has_name(name):
                            self.problems.add(
                                where, f"cites {ref} \"{name}\"; {target} has "
                                "no heading of that name")
                p = PITFALL.match(tail)
                if p:
                    self.section_refs += 1
                    if p.group(1) not in doc.pitfalls:
                        self.problems.add(
                            where, f"cites {ref} pitfall {p.group(1)}; "
                            f"{target} has no pitfall {p.group(1)}")
        if not is_md:
            return
        for m in MD_LINK.finditer(joined):
            if "://" in m.group(1):
                continue
            anchor = m.group(2)
            if not anchor:
                continue
            target = self.resolve(rel, m.group(1))
            if target is None:
                continue  # reported above
            doc = self.doc(target)
            if doc is not None and anchor[1:] not in doc.anchors:
                self.problems.add(f"{rel}:{line_at(m.start())}",
                                  f"links {m.group(1)}{anchor}; {target} has "
                                  "no heading with that anchor")
        own = self.doc(rel)
        for m in BARE_SECTION.finditer(joined):
            if any(a <= m.start() < b for a, b in cited_spans):
                continue
            self.section_refs += 1
            of = SECTION_OF.match(joined, m.end())
            if of:
                target = self.resolve(rel, of.group(1))
                doc = self.doc(target) if target else None
                if doc is not None and m.group(1) not in doc.sections:
                    self.problems.add(f"{rel}:{line_at(m.start())}",
                                      f"cites §{m.group(1)} of {of.group(1)}; "
                                      f"{target} has no heading numbered "
                                      f"{m.group(1)}")
                continue
            if own is not None and m.group(1) not in own.sections:
                self.problems.add(f"{rel}:{line_at(m.start())}",
                                  f"cites §{m.group(1)} of itself; it has no "
                                  f"heading numbered {m.group(1)}")

    # -- contributor map ----------------------------------------------------

    def registered_passes(self, files):
        passes = []  # (flag, kind, defining source or None)
        gen_defs = {}
        for rel in files:
            if not rel.startswith("lib/"):
                continue
            text = read_text(self.root, rel) or ""
            for m in re.finditer(r"#define\s+GEN_PASS_DEF_(\w+)", text):
                gen_defs.setdefault(m.group(1), rel)
            for m in PIPELINE_DEF.finditer(text):
                passes.append((m.group(1), "pipeline", rel))
        for rel in files:
            if not (rel.startswith("include/") and rel.endswith(".td")):
                continue
            text = read_text(self.root, rel) or ""
            for m in PASS_DEF.finditer(text):
                name, flag = m.group(1), m.group(2)
                src = gen_defs.get(name.upper())
                if src is None:
                    self.problems.add(rel, f"pass {name} (--{flag}) has no "
                                      f"GEN_PASS_DEF_{name.upper()} under lib/")
                passes.append((flag, "pass", src))
        return passes

    def check_index(self, files):
        """docs/README.md links every other doc of docs/."""
        index = "docs/README.md"
        docs = [f for f in files if f.startswith("docs/") and f.endswith(".md")
                and f.count("/") == 1 and f != index]
        if not docs:
            return
        text = read_text(self.root, index)
        if text is None:
            self.problems.add(index, "missing (it indexes the docs)")
            return
        linked = {m.group(1) for m in MD_LINK.finditer(text)}
        for doc in docs:
            name = doc.split("/", 1)[1]
            if name not in linked and doc not in linked:
                self.problems.add(index, f"does not link {name}")

    def check_contributing(self, files):
        rel = "docs/contributing.md"
        text = read_text(self.root, rel)
        passes = self.registered_passes(files)
        if text is None:
            self.problems.add(rel, "missing (it holds the pass table)")
            return len(passes)
        rows = {}
        for n, line in enumerate(text.split("\n"), 1):
            if not line.lstrip().startswith("|"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            m = re.fullmatch(r"`--([\w-]+)`", cells[0]) if cells else None
            if m:
                rows[m.group(1)] = (n, cells)
        registered = {flag for flag, _, _ in passes}
        for flag, kind, src in passes:
            if flag not in rows:
                self.problems.add(rel, f"the pass table has no row for "
                                  f"--{flag}, which Fleet registers")
                continue
            n, cells = rows[flag]
            where = f"{rel}:{n}"
            if len(cells) < 3:
                self.problems.add(where, f"row --{flag} needs a source and a "
                                  "test cell")
                continue
            sources = re.findall(r"`([^`]+)`", cells[1])
            if src is not None and src not in sources:
                self.problems.add(where, f"--{flag} is defined in {src}, the "
                                  f"table says {', '.join(sources) or '-'}")
            tests = re.findall(r"`([^`]+)`", cells[2])
            if not tests:
                self.problems.add(where, f"row --{flag} names no test file")
            uses = False
            for t in tests:
                ttext = read_text(self.root, t)
                if ttext is None:
                    self.problems.add(where, f"row --{flag} names {t}, which "
                                      "does not exist")
                    continue
                for run in re.findall(r"RUN:(.*)", ttext):
                    if re.search(r"(?<![\w-])-?-" + re.escape(flag) + r"(?![\w-])", run) or (
                            kind == "pipeline" and "fleet-compile" in run):
                        uses = True
            if tests and not uses:
                self.problems.add(where, f"no RUN line of {', '.join(tests)} "
                                  f"uses --{flag}")
        for flag, (n, _) in sorted(rows.items()):
            if flag not in registered and not self.is_upstream_flag(text, n):
                self.problems.add(f"{rel}:{n}", f"the pass table lists "
                                  f"--{flag}, which Fleet does not register")
        # Backquoted repository paths in the contributor map must exist.
        for n, line in enumerate(text.split("\n"), 1):
            for path in re.findall(r"`((?:lib|include|runtime|tools|test|unittests"
                                   r"|scripts|docs|samples|bench|cmake)/[\w./+-]+)`",
                                   line):
                if any(ch in path for ch in "*<>") or path.endswith("/"):
                    continue
                if not os.path.exists(os.path.join(self.root, path)):
                    self.problems.add(f"{rel}:{n}", f"names {path}, which does "
                                      "not exist")
        return len(passes)

    @staticmethod
    def is_upstream_flag(text, row_line):
        # Rows of tables under a heading that says "upstream" list MLIR's own
        # flags, which Fleet uses but does not register.
        heading = ""
        for line in text.split("\n")[:row_line]:
            if HEADING.match(line):
                heading = line.lower()
        return "upstream" in heading


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", nargs="?", help="repository root")
    parser.add_argument("--root", dest="root_opt", help="repository root")
    args = parser.parse_args()
    root = args.root_opt or args.root or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    checker = Checker(root)
    files = list_files(checker.root)
    checker.check_citations(files)
    checker.check_index(files)
    pass_count = checker.check_contributing(files)
    for item in checker.problems.items:
        print(f"check_docs: error: {item}")
    summary = (f"{checker.citations} citations of .md files, "
               f"{checker.section_refs} section references, "
               f"{checker.name_refs} section names, {pass_count} registered "
               f"passes and pipelines, {len(files)} files")
    if checker.problems.items:
        print(f"check_docs: FAILED: {len(checker.problems.items)} problem(s); "
              f"{summary}")
        return 1
    print(f"check_docs: OK: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
