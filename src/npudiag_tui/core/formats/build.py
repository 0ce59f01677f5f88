"""The grammar of build, install and conversion logs: what a compiler, CMake, make, a package
build or an offline model converter prints around its failure. One definition, read by the
line kinds (`diagnosis.events`), the category (`diagnosis.classify`) and the next actions."""

from __future__ import annotations

import re

# a compiler's diagnostic, always with a column (`file.cpp:357:9: error: …`, `fatal error: 'x.h'
# file not found`, MLIR's `loc("module.mlir":126:16): error: …`), also after a tool's own label
# (`Output of ascend_compiler: `)
_SOURCE_AT = r"([\w./+-]+\.\w{1,4}):(\d+)(?::(\d+))?"  # file, line, column (gcc prints none at times)
# (OpenCV's exceptions print `file.cpp:97: error: (-2:Unspecified error) in function …`: not a compiler)
_NOT_OPENCV = r"(?!\(-?\d+:)"
# (GCC in a Chinese locale says `错误：` and `致命错误：`, with a full-width colon)
COMPILER_DIAGNOSTIC = re.compile(rf"(?:^|\s)(?:{_SOURCE_AT}|loc\(.{{0,400}}?\)): (?:(?:fatal )?error: |(?:致命)?错误：){_NOT_OPENCV}"
                                 r"|^#error\b"  # the preprocessor's directive, quoted without its location
                                 # a compiler driver's own error, before any source is read (an option or a
                                 # language this release does not know: `bisheng: error: unsupported option …`)
                                 r"|^(?:bisheng|ccec|clang(?:\+\+)?|g?cc|[gc]\+\+|nvcc|hipcc|icp?x)(?:-\d+)?: (?:fatal )?error: "
                                 # BiShengIR's verdict that a kernel's tiles do not fit the core's Unified
                                 # Buffer, quoted without the `loc(…): error:` it is printed behind
                                 r"|^ub overflow, requires \d+ bits while \d+ bits\b")
# a compiler's warning, which does not stop it (`kernel.cpp:12:3: warning: …`, MLIR's
# `<unknown>:0: warning: could not cast operand …`): never what failed
# a compiler's excerpt of the source it points at, under its diagnostic (`   64 |   this->Attr(…);`,
# then `      |   ^~~~`): code, never a message
SOURCE_EXCERPT = re.compile(r"^\s*\d*\s+\|(?:\s|$)")
COMPILER_WARNING = re.compile(r"(?:^|\s)(?:[\w./+-]+\.\w{1,4}:\d+(?::\d+)?|<unknown>:\d+(?::\d+)?|loc\(.{0,400}?\)): warning: ")
# where a C/C++ compiler's error points: (file, line, column or None)
DIAGNOSTIC_AT = re.compile(rf"(?:^|\s){_SOURCE_AT}: (?:fatal )?error: {_NOT_OPENCV}")
CMAKE_ERROR = re.compile(r"^CMake Error\b")
# CMake's feature probes (`-- Performing Test X - Failed`, `-- Looking for Y - not found`): a
# configure step asking what the machine has, not an error
BUILD_PROBE = re.compile(r"^-- (?:Performing Test|Looking for|Check(?:ing)? (?:for|if|whether|size)|Could NOT find|"
                         r"Detecting)\b")
# a build that stopped on a failed target (make, ninja)
BUILD_STOPPED = re.compile(r"\bg?make(?:\[\d+\])?: \*\*\* .{0,300}\bError \d+|\bninja: build stopped\b")
# the summaries after a build's first error: they only say that it failed
# a compiler's count of the errors it printed (clang: `2 errors generated.`)
COMPILER_SUMMARY = re.compile(r"\d+ errors? generated\.")
BUILD_SUMMARY = re.compile(r"^(?:-- Configuring incomplete, errors occurred!|" + COMPILER_SUMMARY.pattern + ")|"
                           + BUILD_STOPPED.pattern)
# GNU ld: a shared library that another one needs is not on the link path (`ld: warning:
# libz.so.1, needed by libprotobuf.so, not found`); the undefined references to its symbols that
# surround it (before it too, when make runs targets in parallel) follow from it
LINK_LIBRARY_MISSING = re.compile(r"\bld(?:\.\w+)?: warning: \S+, needed by \S+, not found\b")
# a symbol the link could not resolve, or found twice (two objects that define it: a stale object
# left in the build tree): the link's own error
LINK_UNDEFINED = re.compile(r": undefined reference to [`']|\bld(?:\.\w+)?: error: undefined symbol: |"  # GNU ld, lld
                            r": multiple definition of [`']|\bld(?:\.\w+)?: error: duplicate symbol: ")
# the compiler driver's summary after the linker's errors: it only says the link failed
LINK_FAILED = re.compile(r"\bcollect2: (?:fatal )?error: ld returned \d+ exit status")
# a tool that ran a command and only reports that it failed (`Command excution failed, the
# returnCode is non-zero!`): the command's own output says why
COMMAND_FAILED = re.compile(r"\b[Cc]ommand \w*cution failed|\breturn ?[Cc]ode is non-zero|"
                            r"\b[Cc]ommand exec failed, &exec\.ExitError\b")  # Go's os/exec: the exit status only
# a model converted to an offline model (OM) for the device: ATC, MindSpore Lite's converter, or an
# online conversion of a MindIR that reports it (`Convert MindIR model to OM model failed`)
OFFLINE_CONVERSION = re.compile(r"\bATC run failed\b|\bconverter_lite\b|\b[Cc]onvert \w+ model to OM model failed\b|"
                                r"\b[Cc]onvert graph\s+to om failed\b|"
                                r"\b[A-Z_]+\(\d+,atc\.bin\)|"  # a plog line of ATC's own process (its quantizer too)
                                r"\bOMG Generate\b|/domi/(?:omg|calibration)/|"  # the offline model generator before ATC (DDK), its quantizer
                                r"\bomg\.cc:\d+|"  # ATC's offline model generator checking its options (`[omg.cc:310] … --output_type`)
                                # its model parser (ONNX, TF, Caffe) turning the file into a graph
                                r"\bModel parse to graph failed\b|\bATC model parse ret fail\b")
# anything of the above, or a package build that failed: the failure happened while building
_BUILD_CONTEXT = re.compile(
    "|".join(p.pattern for p in (CMAKE_ERROR, BUILD_SUMMARY, COMMAND_FAILED, OFFLINE_CONVERSION))
    + r"|\b[Ff]ailed (?:to )?(?:download and )?build(?:ing)? (?:wheel|`)|\berror: command '[^']+' failed")


def is_build_line(text: str) -> bool:
    """Whether a (prefix-stripped) line is a build's, an install's or a converter's own output."""
    return COMPILER_DIAGNOSTIC.search(text) is not None or _BUILD_CONTEXT.search(text) is not None
