"""Subsystem routing (docs/diagnosis.md, "Category"): which category an error event belongs to.

The category is decided on the whole event, not on the words of one line, because the next
actions are planned from it. In order:

1. the event's shape when it is unambiguous: a library that cannot load, an out-of-memory, a
   fault of the device, a collective wait that expired, a line the HCCL/HCCP modules logged, a
   failed driver call, a native crash;
2. the status the wrappers printed for it (the aclError, aclnn or HCCL number of
   `error code is N`, `runtime result = N`, `errno[N]`), routed by its name in the status tables,
   then the stage of the call they say failed (a graph capture, an aclnn operator, an HCCL call);
3. the detail's CANN code (its component), then the codes of the event's other lines;
4. the plog module (DRV, PRE_ACT, OP);
5. keywords, as whole words, on the message body: logger and launcher prefixes, source
   locations, `[FUNC:…][FILE:…][LINE:…]` tails and `key=value` fields removed first, so a field
   named `stream_id` or a source file named `compiler_depend.ts` routes nothing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from npudiag_tui.core.formats.codes import ERRNO_FORM, is_inner_code
from npudiag_tui.core.formats.build import (BUILD_STOPPED, COMPILER_DIAGNOSTIC, COMPILER_SUMMARY, LINK_UNDEFINED,
                                            OFFLINE_CONVERSION, is_build_line)
from npudiag_tui.core.formats.console import (DRIVER_TOOL_FAILED, HARDWARE_FAULT, HOST_LIMIT, KILLED_NOTICE,
                                              MISSING_FUNCTION, OP_CHECK_SOURCE, PATH_MISSING, REFUSES_A_SETTING, RELEASES_DIFFER, SO_LOAD_FAILED, clean, stop_signal, strip_prefixes)
from npudiag_tui.core.formats.plog import parse_plog
from npudiag_tui.core.model import ErrorEvent, EventKind
from npudiag_tui.core.registry import lookup_numeric

K = EventKind

# EE1001 ("the argument is invalid") names no subsystem: its reason and the printed status route it
_ENV_CODES = {"E40020", "E40002", "E30006", "EJ0001", "E40024", "E40003",
              # Unsupported_Operator: the installed operator package has no prototype (EZ0501) or
              # no engine at all (EZ3003) for this op (a custom op not deployed, a release without
              # it). EZ3002 is not among them: an engine exists and refuses these specs (dtype,
              # format, shape), which is the operator's own support
              "EZ0501", "EZ3003"}
_MEM_CODES = {"EL0004", "EI0011"}
# the graph engine checking the tensors an application hands a loaded model when it runs
# (E19025 Input Tensor Error: `The input memory provided by the user … is smaller than op_size`):
# the inputs do not fit the model's shapes and sizes, at execution, not while compiling
_INPUT_TENSOR_CODES = {"E19025"}
# the runtime's objects exhausted (EL0006 the resources, EL0008-EL0013 events, streams, notifies,
# models, the service and CDQM queues): too many of them asked for, as a captured graph does
_STREAM_CODES = {"EE1002", "EL0006", "EL0008", "EL0009", "EL0010", "EL0011", "EL0012", "EL0013"}
_AICPU_EXECUTION_CODES = {"E30008"}  # an AI CPU operator that timed out
# What says the software or its set-up is wrong rather than the job: missing or mismatched
# libraries and packages (kernel binaries and tiling functions are shipped in the operator
# package), the wrong devices made visible, a port taken, a rendezvous that never answered.
_ENV_TEXT = re.compile(
    r"cannot open shared object|ImportError|ModuleNotFoundError|No module named|set_env\.(?:ba)?sh\b|"
    r"cannot import name '|"  # an installed package without what is imported from it (its release)
    # an operator namespace without the operator the code calls (`'_OpNamespace' '_C_ascend' object has
    # no attribute 'npu_apply_top_k_top_p'`): the library that registers it was not loaded, or was
    # built from another release than the code
    r"'_OpNamespace' '\w+' object has no attribute '|"
    # code that takes CUDA's path on an Ascend host (`Torch not compiled with CUDA enabled`): the
    # program or its set-up does not target the NPU (torch_npu not imported, a CUDA-only branch)
    r"\bnot compiled with CUDA enabled\b|"
    r"\bcustom OPP\b|\bOPP_PATH\b|"  # the operator package (a vendor's custom one too) not installed or not found
    # CANN's templates for a variable whose value fails its check or that is missing (`Value [x] for
    # environment variable [ASCEND_OPP_PATH] is invalid`, `Environment variable [X] is not set`)
    r"\b[Ee]nvironment variable \[?[\w.-]+\]? (?:is (?:invalid|not (?:set|configured))|must be)\b|"
    r"^" + REFUSES_A_SETTING + "|"  # a configuration checker refusing a setting
    # two settings the job combined that cannot go together (`max_split_size_mb … cannot be enabled
    # with expandable_segments`; argparse's `argument --a: not allowed with argument --b`)
    r"\bcannot be enabled (?:together |at the same time )?with\b|\bnot allowed with argument\b|"
    # a path, a file or a named weight the job needs that is not there (a model folder, a config,
    # weights of another model than the code expects)
    r"\b(?:[Pp]ath|[Ff]ile|[Dd]irectory|[Ff]older|[Ww]eight)\b.{0,160}\bdoes(?: not|n't) exist\b|"
    # Python's own word for it (`FileNotFoundError: Unable to find '/root/data/gsm8k/train.parquet'`,
    # `[Errno 2] No such file or directory: 'x'`); a compiler's missing header keeps its own shape
    r"\bFileNotFoundError\b|\bNo such file or directory: '|" + PATH_MISSING + "|"
    # a model hub that cannot be reached (and no local copy): the network or proxy set-up
    r"\bcouldn't connect to '?https?://|\bMax retries exceeded with url\b|"
    # a service the job talks to that is not there (`Failed to connect to server: 192.168.0.19:7006`)
    r"\b[Ff]ailed to connect to (?:the )?(?:\w+ )?server\b|"
    # a model hub that has no such model, revision or file (ModelScope, Hugging Face)
    r"\bNotExistError\b|\bhas no revision\b|\b(?:Repository|Revision|Entry)NotFoundError\b|"
    # a system call refused by the host: no such file (2), no permission (13), a full (28) or
    # read-only (30) file system
    + ERRNO_FORM + r"(?:2|13|28|30)\b|"
    r"\baclInit\b.{0,40}\bfail|"  # ACL would not initialise: the driver, the device or its configuration
    # a tokenizer that will not load from the model folder (its files, the installed transformers)
    r"\btokenizer\w*\b.{0,80}\b(?:fail(?:ed|s)?|not found|could not be loaded)\b|\bfrom_pretrained failed\b|"
    r"undefined symbol|" + MISSING_FUNCTION + r"|[Dd]l[Oo]pen|version mismatch|(?i:soc[ _]?version)|opp_kernel|binary_info_config|"
    r"[Aa]ddress already in use|port \S+ (?:is )?(?:already )?in use|is been using by other|PY_SSIZE_T_CLEAN|"
    r"not installed|cann package|driver version|(?i:\bCANN (?:toolkit )?version\b)|libascend|GLIBC|"
    # the host cannot resolve a node's name (`/etc/hosts`, DNS): the cluster's set-up
    r"\bgethostbyname\b|\bgetaddrinfo\b|Name or service not known|Temporary failure in name resolution|"
    # the container's shared memory (/dev/shm) smaller than a server needs
    r"[Ss]hared memory\b.{0,40}\bnot enough\b|/dev/shm\b|"
    # `please check whether the … package is installed`, `… whether the op_proto shared library (.so)
    # has been loaded`
    r"\bwhether .{0,60}\b(?:installed|package|toolkit|loaded)\b|"
    r"\bnot (?:found )?in lib[\w.+-]*\.so\b|\.so ?not found\b|"  # a symbol the installed library lacks
    r"does not ha(?:s|ve) any binary|[Nn]o binary|[Dd]o not find tiling func|kernel config fail|"
    r"[Vv]isible device|VISIBLE_DEVICES|[Ff]ailed to (?:listen|bind)\b|\b(?:bind\(?\)?|[Ll]isten) failed|"
    r"TCPStore|\[c10d\].*(?:connect|socket)|rendezvous|[Pp]latform ?[Ii]nfo|has no attribute 'register'|"
    # a package resolver that found no set of versions that fits (pip, uv)
    r"\bunsatisfiable\b|\bNo solution found when resolving\b|\bno (?:matching )?version of\b|"
    r"\bResolutionImpossible\b|\bCould not find a version that satisfies\b|"
    # setuptools finding an installed package of another version than one requires, or none
    # (`pkg_resources.ContextualVersionConflict: (numpy 2.2.4 …, Requirement.parse('numpy==1.26.4'))`)
    r"\b(?:Contextual)?VersionConflict\b|\bDistributionNotFound\b|"
    # a build's configure step that cannot find a package, a file of it, or its headers
    r"\bCould NOT find \w+|\bcould not find requested file\b|\b\w+-NOTFOUND\b|"
    # a package that lacks what its caller was built against (`module 'torch_npu' has no attribute
    # '_npu_flash_attention'`), or a build for another chip than the one present
    r"\bmodule '[\w.]+' has no attribute\b|"
    # gRPC's server sending a client away for pinging too often (`GoAway with error code
    # ENHANCE_YOUR_CALM … "too_many_pings"`): the client's keepalive setting, not the network
    r"\btoo_many_pings\b|\bENHANCE_YOUR_CALM\b|"
    # MindSpore placing a tensor on another kind of device than its context (`The device address type
    # is wrong: type name in address:CPU, type name in context:Ascend`): a MindSpore build or a chip
    # (the 310 series) that cannot compute in Ascend mode
    r"\bdevice address type is wrong\b|"
    # a header of the C++ standard library that the compiler cannot find: the toolchain is older than
    # the sources need, or its own include path is not set up (`fatal error: 'filesystem' file not found`)
    r"fatal error: ['<]?(?:filesystem|cstdint|cstddef|cstdlib|cstring|optional|variant|string_view|any|"
    r"type_traits|memory|mutex|thread|atomic|chrono|functional|array|vector|string|iostream)['>]? file not found|"
    r"[Dd]evice type\b.{0,120}\b(?:does not|doesn't|not) match|"
    r"no NPU device|\bno NPUs? (?:is )?available\b|"
    # PyTorch does not know the device named (`npu` before torch_npu registers it)
    r"\bdevice type at start of device string\b|[Ii]nvalid device|[Ii]nit(?:iali[sz]e)? env(?:ironment)? failed|"
    r"doesn't have (?:NCCL|Gloo|MPI|UCC) built in|CheckCompatibility failed|\bdcmi\b.{0,40}init(?:iali[sz]ed?)? failed|"
    # the driver's management library absent, or the device held by another process or container
    r"(?i:\bdcmi\w*\b.{0,40}library ?not ?found)|\bdevice is (?:used|busy|occupied|in use)\b|"
    r"[Gg]et (?:the )?(?:physical )?device (?:number|count) failed|"
    # an installed package (driver, firmware, CANN) too old for what was asked of it
    r"\b[Tt]his package does not support\b|\bplease (?:change|use|install|upgrade to) (?:a )?new(?:er)? package\b|"
    r"[Bb]inary register fail|"
    # two installed parts of different releases (`The opp version of the model does not match the
    # current opp run package`), or a build tool of another major version than the sources expect
    + RELEASES_DIFFER + r"|\(cmake_minimum_required\)|"
    r"\bCompatibility with CMake < [\d.]+ has been removed\b|"
    # the files or folders the job needs are not the user's to use (a toolkit installed by root)
    r"\bPermission denied\b|\bdoes not belong to (?:you|the current user)\b|\b[Pp]ath\b.{0,40}\binsecure\b|"
    # an installer's own checks of the host: the owner of its target directory (`should belong to
    # root`), the system tools it needs (`The list of missing tools: lspci,ifconfig`), and any step
    # that sends the reader to the installation log (`Dkms install failed, details in :
    # var/log/ascend_seclog/ascend_install.log`): the machine's installation, not a job
    r"\bshould belong to root\b|\b[Ll]ist of missing tools\b|\bascend_install\.log\b|"
    # Ascend's installers and tools refuse a file that is a link (a security check of the path)
    r"\bis (?:a )?(?:soft|symbolic) link\b|\bis a symlink\b|"
    # a device function already held by another process (the media drivers: `VO functions must
    # work in the same pid!!!`)
    r"\bmust work in the same pid\b|"
    # a tool or library older than what the sources need (`a too old version of GCC`)
    r"\btoo old version\b|\bversion\b.{0,40}\btoo old\b|"
    # a process left over from an earlier run still holds what the new one needs (a scheduler's
    # port, a registration): `another scheduler process with port:2222 still running`
    r"\b(?:another|residual|stale|leftover) (?:\w+ )?process\b.{0,80}\b(?:still running|is running)\b|"
    # a management service that finds no usable driver library (its path fails the owner or mode check)
    r"\b(?:cannot|can't|could not) (?:found|find) (?:any )?valid (?:driver )?lib\w*|"
    # protobuf refusing a second registration of one .proto file: two installed packages carry the
    # same generated code (a TE or CANN wheel of another release than the toolkit)
    r"\bFile already exists in database: \S+\.proto\b|"
    r"TsdOpen failed|tsd ?(?:client|daemon).{0,40}(?:fail|abnormal)|"  # the device's TSD daemon would not open
    r"recogni[sz]e (?:the )?(?:Ascend )?(?:chip|SoC)\b|"  # the software cannot tell which chip it runs on
    # the container runtime could not set the container up (the Ascend hook mounts the driver's files)
    r"prestart hook|OCI runtime|runc create failed|failed to (?:set ?up|create) (?:the )?container|"
    r"\bnpu-smi\b.{0,160}(?:exit status \d|failed|[Ee]rror)|"  # the driver's own tool refused
    + DRIVER_TOOL_FAILED + "|"
    # the operator compiler (TBE) would not start: its Python packages, the CANN environment
    r"\bTbeInitialize\b.{0,40}\bfail|"
    # a device that could not be opened (`Acl open device 0 failed`, `Failed to open device`): the
    # driver, its libraries, or a device that is occupied or not visible, before any work ran on it
    r"\b[Oo]pen device \d+ failed\b|\b[Ff]ailed to open (?:the )?device\b|"
    # a tool that does not know a value it was given (LLVM's `bishengir-compile: for the --target
    # option: Cannot find option named 'X'!`): the installed toolchain does not support this chip
    r"for the -{1,2}[\w-]+ option: (?:Cannot find option named|[Uu]nknown|[Ii]nvalid)|"
    # a service whose configuration manager or file would not load at start-up (MindIE's `Engine init
    # config manager failed`): its configuration, not the job
    r"\b(?:[Ii]nit(?:iali[sz]e)?|[Ll]oad) (?:the )?config(?:uration)? ?(?:manager|file)\b|"
    # … or a part of it that would not build from the file (`ConfigManager init exception: Failed
    # to initialize ModelDeployConfig from JSON.`)
    r"\b[Cc]onfig ?[Mm]anager\b.{0,40}\b(?:init\w*|load\w*) (?:exception|fail\w*|error)\b|"
    r"\b[Ll]oad(?:ing)? (?:the )?config(?:uration)? failed\b|"  # a device plug-in's `load config failed, error is …`
    r"\b[Ff]ailed to (?:initiali[sz]e|load|parse|read) \w*[Cc]onfig\w* from (?:JSON|json|YAML|yaml|(?:the )?file)\b|"
    # a service's check of the files it reads (MindIE refuses a config or weight file that others may
    # read: `Check Other group permission failed: Current permission is 4, but required no greater than 0`)
    r"\b[Cc]heck (?:\w+ ){0,3}permission failed\b|\bpermission is \d+, but required\b|"
    # the graph engine's registry of an operator's functions (its tiling parser, compile-info
    # creator) without the one asked for: an operator package of another release than the toolkit
    r"\b[Ff]ailed to find (?:the )?func(?:tion)? by type \w+|"
    # a framework package built for another device than the one asked for (MindSpore's `package type
    # mindspore-gpu support 'device_target' type gpu or cpu, but got Ascend`)
    r"\bpackage type [\w.-]+ supports?\b.{0,80}\bbut got\b|"
    # a configuration its schema rejects (pydantic's `1 validation error for CompilationConfig`,
    # `Value error, Invalid backend …`): settings or plug-in versions that do not fit this release
    r"\bvalidation errors? for [A-Z]\w*|\bValue error, |"
    # an inference engine whose installed release has no implementation of the model asked for
    r"[Uu]nsupported model (?:type|arch\w*)|[Mm]odel (?:type|architectures?) .{0,120}\b(?:is|are) not supported|"
    # a package's compiled extension that would not load (torchvision's `Couldn't load custom C++ ops`):
    # a build of another release than the framework, whatever reasons its hint lists
    r"\b(?:[Cc]ould(?:n't| not)|[Cc]an(?:not|'t)|[Uu]nable to) load (?:the )?(?:custom |native |compiled )?"
    r"(?:C\+\+ |C )?(?:ops|extensions?|librar(?:y|ies))\b|"
    # PyTorch's dispatcher without an operator a library should have registered (`operator
    # torchvision::nms does not exist`): that library built for another torch release, or not loaded
    r"\boperator \w+::\w+ does not exist\b|"
    # the runtime asking the driver which chip it runs on and getting no answer (`Get soc name
    # failed`): a stack too old for the chip, or a container without the driver's files
    r"(?i:\bget (?:the )?soc ?(?:name|version)\b.{0,20}\bfail)|"
    # an API that a newer release of a package took away (`np.float_ was removed in the NumPy 2.0
    # release`): the installed package is of another release than the code calling it
    r"\bwas removed in (?:the )?[\w.-]+ v?\d[\w.]* release\b|"
    # a build that finds no compiler for a language the project uses: the toolchain is not installed
    r"\bNo CMAKE_\w+_COMPILER could be found\b|"
    + SO_LOAD_FAILED + "|" + HOST_LIMIT
)
_DEVICE_TEXT = re.compile(
    r"error from device|aicore error|aivec error|aicpu error|ai(?:core|vec|cpu) exception|core_id=|"
    r"(?i:\bAI ?Core\b|\bAI ?CPU\b|\bAIV\b|\baivec\b|vector core)|"
    r"device-side assert|illegal memory access|errorStr|core id is|ub address|(?i:smmu)|"
    # MindSpore's dump of the runtime's task-exception report: a task failed on the device
    r"Task fail infos|DumpTaskExceptionInfo|"
    # a copy task the device's DMA engine reported failed (`Asynchronous memory copy failed,
    # device_id=0, stream_id=61, task_id=0`)
    r"[Aa]synchronous memory copy failed\b|"
    # the runtime's report of the task that failed on the device inside a model, and its type
    r"\bReal task exception\b|\(KERNEL_AI(?:CORE|CPU|VEC?)\)|"
    # the silent-data-corruption check of a training step's feature values (`SilentCheck get L1
    # Error, input message: val = [inf]`): the device computed wrong values, an NPU health event
    r"\bSilentCheck\b.{0,40}\bError\b"
)
_MEM_TEXT = re.compile(r"(?i:out of memory)|OutOfMemory|\bOOM\b|[Mm]emory allocation failed|alloc(?:ate)? .*fail|"
                       # an allocator call that failed (halMemAlloc, rtMalloc)
                       r"\b\w*(?:[Mm]alloc|Mem\w*Alloc)\w*\s+failed|"
                       # the device memory manager's shared virtual memory calls (`svm advise failed`)
                       r"\b[Ss]vm \w+ failed\b|"
                       r"\bHBM\b|No available memory|memory pool|[Mm]em ?pool|[Nn]ot enough (?:device )?memory|"
                       r"[Mm]emory (?:is )?not enough|(?:more than|exceeds?) (?:the )?total mem(?:ory)?\b|"
                       r"\bmemory alloc(?:ation)? error\b")  # the runtime's `DevMalloc:dev memory alloc error`
_COMPILE_TEXT = re.compile(
    r"[Dd]ynamo|graph break|BackendCompilerFailed|FakeTensor|[Mm]eta tensor|capture mode|[Cc]aptur(?:e|ed|ing)\b|\bcapture_(?:begin|end)\b|"
    r"aclgraph|npugraph|torchair|[Cc]ompil(?:e|ing|ation(?:Error)?)\b|\bTBE\b|kernel_meta|AOTAutograd|aot_eager|"
    r"\b[Rr]un pass\b|"  # a compiler's pass manager (`Run pass [ExpandFunction] failed.`)
    r"[Rr]eplay\b|CaptureBegin|CaptureEnd|"
    r"\bMLIR\b|\bloc\(\"[^\"]{0,200}\.mlir\"|bishengir|BiSheng|"  # a kernel compiler's own diagnostics
    r"\berror in backend: |\bLLVM ERROR: |"  # LLVM's code generator (`Cannot select: intrinsic …`)
    # the kernel compiler's assembler: a branch whose offset does not fit its instruction (`error: out
    # of jump/jumpc imm range`, a kernel too large)
    r"\bout of [\w/]+ imm(?:ediate)? range\b|\bimmediate (?:value )?out of range\b|"
    # MLIR's diagnostic of one operation (`error: 'builtin.unrealized_conversion_cast' op Unsupported
    # user …`: the op named as dialect.op, then `op`) and its call-site location, whose paths name
    # the kernel's Python source (triton-ascend): only an MLIR-based compiler prints either
    r"'[a-z_]\w*\.[a-z_][\w.]*' op\b|\bloc\((?:callsite\()+|"
    r"\bundefined reference to\b|"  # the linker's
    # TVM-based kernel compilers (TileLang): a pass's internal check; torchair: an op the graph
    # conversion has no converter for
    r"\bTVMError\b|\btvm\.error\b|\bInternalError: Check failed\b|\bconverter is not implemented\b|"
    # MLIR's dialect conversion (`failed to legalize operation 'func.func' that was explicitly marked illegal`)
    r"\bfailed to legalize operation\b|"
    r"(?i:\bgraph check failed\b)|"  # a graph refused by the graph engine's checks while it is built
    # FakeTensor tracing an operator whose output shape depends on its data (`dynamic shape operator:
    # aten.bincount.default; Operator does not have a meta kernel that supports dynamic output
    # shapes`): torch.compile or graph capture cannot trace it, whatever the operator computes
    r"\bmeta kernel\b|\bDynamicOutputShapeException\b|\bDataDependentOutputException\b|\bGuardOnDataDependentSymNode\b|"
    # a C++ compiler's own wording, kept when a report cut the diagnostic's location (GCC's `error:
    # 'cudaStream_t' was not declared in this scope`): the sources do not build here
    r"\bwas not declared in this scope\b|\bdoes not name a type\b|\bhas no member named\b|"
    r"\bno matching function for call to\b"
)
# the error manager's step report that an environment failed to initialise (`[Init][Env]init env failed!`)
_ENV_INIT = re.compile(r"[Ii]nit(?:iali[sz]e)? env(?:ironment)? failed")
_EVENT_WAIT = re.compile(r"\bevent wait\b", re.I)
_OP_TEXT = re.compile(r"\baclnn\w*|\baclop\w*|\bCheckIniMatch\b|[Tt]iling\b|(?i:infer ?shape)|\bop type is\b|\boperator\b|\bNNOP\b|"
                      # a converter or runtime naming operators it has no kernel for (`1 ops are not
                      # supported on 'nnadapter'. These unsupported ops are: 'rnn'.`)
                      r"\bops? (?:is|are) not supported\b|\bunsupported ops?\b|"
                      # an operator named in brackets, Paddle's by its dialect too (`op [pd_op.full_with_tensor]`)
                      r"[Kk]ernel param|\bop\[|\bop \[\w+(?:\.\w+)+\]|(?<!\w)\w+Operation (?:setup|CreateOperation) failed|\batb::|"  # ATB operations
                      # a traceback frame in torch_npu's operator plug-in (its ATB and aclnn bindings):
                      # the call an operator refused, whatever its bare message (`setup failed!`)
                      r"\btorch_npu/op_plugin/|"
                      # an AI CPU kernel checking its inputs (`[GetInputAndCheck]Shape must be at least rank`)
                      r"\[GetInputAndCheck\]|\bGetInputAndCheck failed\b|"
                      # the graph engine's operator support check and its single-op execution
                      r"\bop information library\b|\bops kernel \w+ is unsupported\b|\[Exec\]\[Op\]|\bExecute op failed\b|"
                      # an operator's own limit check (`batchSize(bs) must <= 256.`, `CheckData failed`)
                      r"\bmust (?:be )?(?:<=|>=|<|>|==|!=|less than|greater than|equal to|between)|"
                      r"\bCheck(?:Data|Params?|Shape|Inputs?|Attrs?) failed|"
                      # a kernel's launch grid over the runtime's limit for this input (Triton-Ascend)
                      r"\bgrid (?:should|must) be\b|\bgrid (?:size|dim\w*)\b.{0,40}\bexceed|"
                      # PyTorch's dispatch found no kernel of the operator for this dtype
                      r"\"\w+\" not implemented for '\w+'|"
                      # PyTorch's dispatcher refusing an operator call against its schema (`_C_ascend::
                      # npu_causal_conv1d_custom() Expected a value of type 'List[int]' for argument 'x'`)
                      r"\bExpected a value of type '[^']{1,80}' for argument\b|"
                      # Ascend C's kernel API checks, printed per block and core by the kernel's debug
                      # build (`[ERROR][Block_1][AIV_0][…impl.h:314][CompareScalar][pid] Failed to check …`)
                      r"\[AI[CV]_\d+\]\[|"
                      # a result check against the reference found the operator computing wrong values
                      # (a kernel test harness's `Output mismatch, max diff: nan`, torch.testing's
                      # `Mismatched elements: 3 / 8`)
                      r"\b[Oo]utput mismatch\b|\bMismatched elements\b|\bTensor-likes are not close\b|"
                      r"\b(?:[Pp]recision|[Aa]ccuracy) (?:check|comparison|compare) failed\b|"
                      # an operator or a model's node given a tensor of another size or shape than it
                      # takes (the graph engine's `Input[40]:tensor size mismatches.expected: 768032, but given 32`)
                      r"\b[Tt]ensor (?:size|shape)s? mismatch(?:es|ed)?\b")
# c10's throw sites in torch_npu's operator layer: the op-plugin library, its aclnn calls, ATB operations
_OP_THROW_SITE = re.compile(r"op[-_]plugin|\bOperationSetup\b|OpApi|\bopapi\b|\baclnn", re.I)
# PyTorch handing a call to a registered operator's implementation (`OpOverloadPacket.__call__` in
# torch/_ops.py: `return self._op(*args, **kwargs)`): an exception raised there is the operator's
_OP_CALL_SITE = re.compile(r"^__call__ at \S*torch/_ops\.py$")
# a configuration object's own checks (`__post_init__ at …/transformer_config.py`, Megatron's
# `validate_args at …/arguments.py`): the exception they raise refuses a setting
_SETTINGS_CHECK_SITE = re.compile(r"^(?:__post_init__|_?(?:validate|verify|check)\w*) at \S*?"
                                  r"(?:config\w*|arguments|args|settings|options)\.py$")
_COMM_TEXT = re.compile(
    r"\bHCCL\b|\bhccl\w*|\bHCCP\b|\bHCCL_[A-Z_]+\b|\bhccp\b|ProcessGroupHCCL\b|[Rr]ank ?[Tt]able|\branktable\b|\b[Ss]ocket\b|\b[Nn]otify\b|LinkEstablish|"
    r"\b[Tt]ransport\b|\brdma\b|\bRDMA\b|error cqe|\bHccl\w+|\bRoCE\b|link down|port down|device_ip|"
    # (vLLM's `collective_rpc` is its call to every worker over a message queue, not a collective)
    r"CommInit\w*|[Cc]ollective(?!_rpc)|\brank ?[Ss]ize\b|"
    r"[Ff]ailed to connect to (?:the )?(?:target|peer|remote|segment)\b|"  # a device-to-device link (KV transfer)
    r"[Cc]onnect(?:ion)? (?:timeout|timed out) to\b|"  # a peer that never answered the link's set-up
    # the KV-cache transfer between prefill and decode instances (LLMDataDist, Mooncake's transfer
    # engine) runs over the devices' links: its failures are a link's
    r"\bLLMDataDist\w*|\bllm_?datadist\b|\bLlmData\w+|\bLLM_LINK_FAILED\b|\bLLMException\b|"
    r"[Mm]ooncake transfer|\b[Tt]ransfer (?:slice|batch|request)s? failed|\b(?:[Ss]ync )?batch data transfer\b|"
    r"\bKV ?(?:cache )?transfer\b|\bkv_transfer\b"
)
# (a runtime call named in CamelCase counts too: `SyncStream failed`, `CreateStream failed`)
_STREAM_TEXT = re.compile(r"\b[Ss]tream\w*|(?:Sync|Create|Destroy|Bind|Unbind|Wait|Launch)Stream\b|\b[Ee]vent\b|[Ss]ynchroni[sz]e|\bsq ?cq\b|SqCq")
_CRASH_TEXT = re.compile(r"^#\d+\s+0x|Segmentation fault|\b[Ss]egfault\b|SIGSEGV|core dumped|SIGABRT|"
                         # worker processes noticing that their parent vanished (killed: the OOM
                         # killer, a signal): a death without a code, whatever the workers do
                         r"\bmain process disappeared\b")
_ENOMEM = re.compile(r"\berrno:\s*12\b|\bENOMEM\b|\bret\s*=\s*-12\b")  # a C call's -ENOMEM too
_DRIVER_TEXT = re.compile(r"\[drv api\]|\bhal\w+\b.*fail|drvRetCode")
# What shows that a process died natively, for the words "crashed" (engine, actions): a signal,
# a segfault, a core dump, an uncaught C++ exception, an abort, a native backtrace frame or a
# crash header (abseil's `*** SIGSEGV received at`, glog's `*** Check failure stack trace`,
# Python's `Fatal Python error`), or a launcher saying a process exited by a signal. A plain
# [ERROR] line, an HCCL "abort" call or a "signal" of a notify wait is none of these.
_CRASH_EVIDENCE = re.compile(
    r"^#\d+\s+0x[0-9a-fA-F]+|Segmentation fault|\b[Ss]egfault\b|\bSIG(?:SEGV|ABRT|BUS|ILL|FPE|KILL)\b|core dumped|"
    r"Fatal Python error|^Aborted\b|terminate called|\*\*\* (?:Aborted at|Check failure stack trace)|"
    r"\b(?:received|caught|killed by|terminated by|died with|exited with|exited by|exit by) (?:fatal )?signal\b|"
    r"\bexit ?code\s*:?\s*-(?:4|6|7|8|9|11)\b|\bexit(?:ed with)? (?:code|status) 13[49]\b"
)
# the sources of the libraries that move the KV cache over the devices' links (HIXL, LLMDataDist, a
# transfer engine's or HCCL's transports), named by a line's location (`[FILE:hixl_impl.cc]`,
# glog's `ascend_direct_transport.cpp:460`): a failure raised there is the link's
# (a Python `transports.py` is asyncio's, not a link's)
_TRANSFER_SOURCE = re.compile(r"(?<![\w.-])(?:\w+_)?(?:(?:hixl|llm_?datadist)\w*\.(?:cc|cpp|cxx|h|hpp|py)|"
                              r"transport\w*\.(?:cc|cpp|cxx|h|hpp))\b", re.I)
# the Ascend C kernel framework's own source (`…/tikcpp/tikcfw/interface/kernel_tpipe.h:730`) or API
# (`AscendC::LeakyRelu`): a check of its API failed inside a kernel, in CPU debug or on the device
_ASCENDC_SOURCE = re.compile(r"/tikcpp/tikcfw/|\bAscendC::\w")
# a kernel's assertion inside the Ascend C API's own headers (`[ASSERT] …/include/ascendc/highlevel_api/
# lib/matmul/matmul_client.h:268: Assertion …`): the kernel called the API against its rules
_ASCENDC_API_ASSERT = re.compile(r"\[ASSERT\]\s*\S*(?:/include/ascendc/|/ascendc/highlevel_api/|/tikcpp/tikcfw/)")
# a subprocess that failed, by its program (`CalledProcessError: Command '['…/bishengir-compile', …]'`):
# the program's folder is dropped with the other paths, its name says which stage failed
_FAILED_COMMAND = re.compile(r"CalledProcessError: Command '\[?'?(?:[^'\s\]]*/)?([\w.+-]+)")
_COMPILER_PROGRAMS = re.compile(r"^(?:bishengir-compile|bisheng|ccec|[gc]\+\+|gcc|cc|clang(?:\+\+)?|ld(?:\.\w+)?|"
                                r"cmake|make|ninja|nvcc|atc|msopgen|ptoas|\w*-opt)$")
# a file operation in the CANN install tree that failed (`[ERROR] create /usr/local/Ascend/cann/opp/
# vendors/customize/framework failed`): a package or its deployment without the rights it needs
_INSTALL_TREE_OP = re.compile(r"\b(?:create|mkdir|copy|cp|mv|move|write|remove|rm|chmod|chown|install)\b\s+"
                              r"\S*/(?:Ascend|ascend-toolkit|cann[\w.-]*)/\S*\s+failed\b")
# Noise removed before keywords: source locations, the error manager's tails, key=value fields.
_SOURCE_LOC = re.compile(r"(?<![\w./-])[\w./-]+\.(?:cc|cpp|cxx|c|h|hpp|py|ts):\d+\]?"
                         # MindSpore's function tag after it (`model_converter.cc:200] operator()] …`)
                         r"(?:\s?[\w:~]{1,120}(?:\(\))?\](?= ))?|\[(?:FUNC|FILE|LINE|THREAD):[^\]]{0,256}\]")
# `{0,256}`: an unbounded `[^\]\s]*` re-scanned the rest of a `[1[1[1…` line from every `[`
# a file-system path of two folders or more (`/root/samples/operator/AddCustom/build`) in a message:
# its words are names the user chose, not the failure's
_FS_PATH = re.compile(r"(?<![\w.:-])(?:[\w.+~-]*/){2,}[\w.+~-]*")
_KEY_VALUE = re.compile(r"\b(?!reason\b)\w+=[^\s,;)]*|\b(?!reason\b)\w+\[[^\]\s]{0,256}\]"  # a reason is the message
                        # a kernel print's bracketed header fields (`[ASSERT] [CANN VERSION : 8.1.RC1][TimeStamp : 0]`):
                        # the release that built the kernel, not a release at fault
                        r"|\[[A-Za-z][\w ]{0,40} : [^\]\n]{0,80}\]")


def message_body(text: str) -> str:
    """The words a keyword may be read from: no plog header (its module and process name are the
    envelope: `AICPU(…,aicpu_scheduler)` says who printed it, not what failed), source locations,
    error-manager tails or fields."""
    p = parse_plog(text) if "[" in text[:80] else None
    if p is not None:  # the function a runtime line names says what it was doing (`[GetInputAndCheck]`)
        text = f"[{p.func}] {p.message}" if p.func and not p.mindspore else p.message
    return _KEY_VALUE.sub(" ", _SOURCE_LOC.sub(" ", text))


def category_of_code(code: str) -> str | None:
    if code in _ENV_CODES:
        return "environment"
    if code in _MEM_CODES:
        return "memory"
    if code in _STREAM_CODES:
        return "stream_event"
    if code.startswith(("EI", "EJ")):
        return "communication"
    if code.startswith(("EK", "EP")) and not is_inner_code(code):
        # the profiling and dump tools: a setting of theirs (a path, a mode, the order of calls),
        # or the host memory they could not get (EK02xx)
        return "memory" if code.startswith("EK02") else "environment"
    if code.startswith("EL"):
        # the driver: a call into it failed (set-up, device visibility, firmware), not a kernel fault
        return None if is_inner_code(code) else "environment"
    if code.startswith("EZ"):
        return None if is_inner_code(code) else "operator"
    if code.startswith(("E9", "EA", "EB", "E2", "E4")) and not is_inner_code(code):
        return "compile"
    if code.startswith(("E5", "E6", "E7")) and not is_inner_code(code):
        return "operator"
    if code.startswith("E8") and not is_inner_code(code):
        return "environment"
    if code.startswith("E3") and not is_inner_code(code):
        # the AI CPU family: setting up the device's own processes (TSDaemon, the AI CPU scheduler,
        # cgroups, packages sent to the device); only an operator that timed out there is the job's
        return "device" if code in _AICPU_EXECUTION_CODES else "environment"
    if code in _INPUT_TENSOR_CODES:
        return "operator"
    if code.startswith("E1") and not is_inner_code(code):
        return "compile"
    return None


# aclError names (reference/numeric_codes.json) -> category, most specific words first
_ACL_NAME_ROUTES = (
    ("CAPTURE", "compile"), ("CAPTURED", "compile"),
    ("DEVICE_OOM", "memory"), ("MEMORY_ALLOCATION", "memory"), ("BAD_ALLOC", "memory"),
    ("AICORE", "device"), ("AIVEC", "device"), ("AICPU", "device"), ("VECTOR_CORE", "device"),
    ("SYS_DMA", "device"),  # the device's system DMA engine failed a transfer
    ("MODEL_EXECUTE", "device"),  # a task inside the model failed on the device
    ("NOT_SUPPORT", "environment"), ("UNSUPPORTED", "environment"), ("INVALID_DEVICEID", "environment"),
    ("NO_DEVICE", "environment"), ("INVALID_DEVICE", "environment"), ("DRV", "environment"),
    ("SOC_VERSION", "environment"),  # the runtime could not identify the chip: install or container
    # initialised twice or not at all: two parts of one process set the runtime up (integration)
    ("REPEAT_INITIALIZE", "environment"), ("UNINITIALIZE", "environment"),
    # the graph engine refused what the application handed it (a model file, its path, its
    # parameters): the 1xxxxx "caller or environment" band of GE, not a fault of the run
    ("GE_PARAM_INVALID", "environment"), ("GE_EXEC_MODEL", "environment"), ("GE_EXEC_NOT_INIT", "environment"),
    ("GE_PLGMGR_PATH", "environment"),
    ("NO_NOTIFY_RESOURCE", "stream_event"),  # the runtime's notify objects, like its streams and events
    ("CONTEXT", "stream_event"), ("STREAM", "stream_event"), ("EVENT", "stream_event"), ("TASK_TIMEOUT", "stream_event"),
    ("WAIT_TIMEOUT", "stream_event"), ("FFTS_PLUS_TIMEOUT", "stream_event"),
    # the link between devices (HCCS, UB) failed, or the runtime suspects the fault is on the device
    # at its far end: the peer's own logs say what happened there
    ("LINK_ERROR", "communication"), ("REMOTE_ERROR", "communication"),
)


# loading an offline model (ACL's aclmdlLoadFromFile, pyACL's acl.mdl.load_from_file, the SDKs'
# own words for it)
_MODEL_LOAD = re.compile(r"\baclmdlLoadFrom(?:File|Mem)\w*|\bacl\.mdl\.load_from_(?:file|mem)\w*|"
                         r"\bload(?:ing)? (?:the )?(?:offline )?model(?: data)? from (?:the )?(?:file|mem\w*)\b|"
                         r"\b[Ff]ailed to load (?:the )?(?:offline |om )?model\b|"
                         # a model file the tool could not read (its path, its rights, a damaged file)
                         r"\b[Rr]ead (?:the )?(?:\w+ )?model file failed\b")
DEVICE_SETUP_FAILED = 507033
GE_FAILURE = 500002  # ACL_ERROR_GE_FAILURE: the graph engine failed, whatever inside it did
# the runtime's and the driver's generic internal errors: the call that returned one (an allocation,
# a device query) says more of what failed than the status does
GENERIC_STATUSES = frozenset({507000, 507899})
# the error manager's tail naming an operator's tiling function (`[FUNC:Tiling4GridSampler3D]`)
_TILING_FUNC = re.compile(r"\[FUNC:\w*Tiling\w*\]")


def category_of_number(domain: str, value: int) -> str | None:
    if domain == "aclnn":
        if value == 561112:
            return "environment"
        # 161xxx: the call's parameter checks; 361xxx: a failure inside the call; 561xxx: inner errors
        if value // 1000 in (161, 361) or (value // 1000 == 561 and value != 561000):
            return "operator"
        return None
    if domain == "hccl":
        return "communication"
    if domain == "acl":
        if 107024 <= value <= 107041:
            return "compile"
        if value == DEVICE_SETUP_FAILED:
            return None  # a consequence of memory, packages or an occupied device: decided last (route)
        nc = lookup_numeric(value, "acl")
        if nc is not None:
            for word, cat in _ACL_NAME_ROUTES:
                if word in nc.name:
                    return cat
        return None
    return None


# the task scheduler refusing to bind, unbind or destroy a stream still in use
# (`proc_model_stream_unbind: unbind model stream failed, stream is running`)
_STREAM_OP = re.compile(r"\b(?:un)?bind (?:model )?stream\b|\bstream is (?:still )?(?:running|busy|in use)\b")
# a media (DVPP) driver checking the parameters of a call (`[Vdec]:vdec_check_resize_param … the out
# format 0 is not supported`): what the caller passed, whatever status the host then printed
_MEDIA_PARAM_CHECK = re.compile(r"\[(?:Vdec|Venc|Vpc|Jpegd|Jpege|Pngd)\]:?\s*\w*check\w*param", re.I)
# the runtime refusing a memory copy whose declared kind does not match where the memory is
# (`The real memory type of src is 1(RT_MEMORY_LOCATION_DEVICE), and the input type is 0`,
# `MemcpyAsyncCheckKindAndLocation: … src loc type=2, dst loc type=2, kind=1 is invalid!`): the
# caller's arguments (an operator's or the framework's copy), not a stream or the memory itself
_COPY_KIND_REFUSED = re.compile(r"CheckKindAndLocation\b|loc type=\d+.{0,60}\bkind=\d+ is invalid\b|"
                                r"real memory type of (?:src|dst) is\b")


def _shape(ev: ErrorEvent, body: str) -> str | None:
    """Step 1: the event's own shape, when it settles the question."""
    if ev.kind == K.CRASH:
        return "unknown"
    if LINK_UNDEFINED.search(body):  # the link of what is being built, not a library loaded at run time
        return "compile"
    if ev.kind == K.IMPORT or ev.env_hint or _ENV_TEXT.search(body):
        return "environment"
    if COMPILER_DIAGNOSTIC.search(ev.detail or ev.text):  # a compiler's own diagnostic
        # ... unless what it compiled is the driver's kernel modules, as the driver installs
        return "environment" if _KERNEL_MODULE_BUILD.search(ev.text) else "compile"
    if HARDWARE_FAULT.search(body):  # an HBM ECC error is the chip's memory failing, not the job's
        return "device"
    if ev.kind == K.OOM or _MEM_TEXT.search(body):
        return "memory"
    if ev.comm_wait:  # a wait on an event is a stream primitive; the others wait on a peer
        return "stream_event" if _EVENT_WAIT.search(body) else "communication"
    if ev.kind == K.DEVICE_EXC:
        return "operator" if _ASCENDC_API_ASSERT.search(ev.text) else "device"
    if (ev.kind == K.TIMEOUT and _COMM_TEXT.search(body)) or ev.kind == K.HEARTBEAT:
        return "communication"  # (HCCL's heartbeat verdict on a peer: the collective lost it)
    if ev.module in ("HCCL", "HCCP"):  # what logged it is the subsystem that failed
        return "communication"
    if ev.module == "TSCH" and _STREAM_OP.search(body):
        return "stream_event"  # the scheduler refused an operation on a stream, no task failed
    if ev.module == "TSCH" and not _COMM_TEXT.search(body):
        # the device's task scheduler reports a task of this device that failed or hung (a wait
        # on a peer's notify it reports too, and that one stays a collective's)
        return "device"
    if ev.kind == K.DRIVER or _DRIVER_TEXT.search(body):
        # a driver allocation that found no memory is the memory; any other driver failure, the set-up
        return "memory" if _ENOMEM.search(body) else "environment"
    return None


# the call a wrapper says failed: torch_npu's `NPU function error: X`, `call aclnnX failed`, and ONNX
# Runtime's `CANN failure 500001: … ; expr=aclopCompileAndExecute(…)`
_WRAPPED_CALL = re.compile(r"(?:NPU|OPS|HCCL) function error: ([\w:]+)|call (aclnn\w+|Hccl\w+) failed|"
                           # the check's own function, when the message names no call after it
                           # (`SetPrecisionMode:…/compiler_depend.ts:155 NPU function error`)
                           r"\b(\w+):[\w./+*-]+:\d+ (?:NPU|OPS|HCCL) function error\b(?!: )|"
                           r"\bexpr=(?:\w+::)*(acl\w+|Hccl\w+)\(|"
                           # ONNX Runtime's CANN provider: `CANN Graph error executing ge::aclgrphBuildModel(…)`
                           r"\bCANN (?:\w+ )?error executing (?:\w+::)*(acl\w+|Hccl\w+)\(|"
                           # a program's own check of a call's status (`aclrtKernelArgsFinalize(argsHandle)
                           # returned error code 100000`)
                           r"\b(acl\w+|Hccl\w+)\([^()\n]{0,200}\) returned error code\b|"
                           r"\b(\w*(?:KernelLaunch|LaunchKernel)\w*) ret(?:Code)?[ =:]+\d|"  # a launch that prints its status
                           r"\b(acl(?:op|nn|grph)\w+) ret(?:Code)?[ =:]+\d|"  # an ACL call's printed status (`aclopInferShape ret:500002`)
                           # a glog CHECK on the status a CANN call returned (`Check failed: (…(aclgrphBuildModel(…))
                           # == ge::GRAPH_SUCCESS)`)
                           r"\bCheck failed: .{0,80}?\b(acl\w+|Hccl\w+)\(|"
                           # ACL's own plog line names the call it failed in before its message
                           # (`aclrtFree: free device memory failed, runtime result = 507899`)
                           r"\b(acl\w+): [^:\n]{0,120}?\bfailed\b")
# the stage a failing call belongs to; synchronize calls are where any async failure surfaces, so
# they name no stage
_API_STAGES = (
    # setting an op-compiler option fails only when the compile stack cannot start (packages)
    (re.compile(r"SetCompileopt|SetPrecisionMode"), "environment"),
    (re.compile(r"Captur|Replay|RIModel|[Gg]raph|^aclgrph"), "compile"),  # aclgrph*: the graph engine's build API
    (re.compile(r"^aclopCompile"), "compile"),  # an operator compiled online, then run
    (re.compile(r"^aclnn|^aclop"), "operator"),
    # a kernel launch the runtime refused (its status named no fault of the device): the kernel's
    # launch configuration, its block count or its arguments
    # (the kernel's launch arguments packed for it, `aclrtKernelArgs…`, are part of its launch)
    (re.compile(r"KernelLaunch|LaunchKernel|KernelArgs"), "operator"),
    (re.compile(r"^Hccl|hccl"), "communication"),
    (re.compile(r"Malloc|Alloc|Free"), "memory"),
)


# torch_npu's ERR<SS><EEE> names the module whose call failed: 01 OPS (an operator), 02 DIST (a
# collective), 03 GRAPH (graph mode); 00 PTA (the framework itself) names no subsystem
_TORCH_NPU_MODULES = {1: "operator", 2: "communication", 3: "compile"}


def _failing_api(text: str) -> str | None:
    """The category of the call a wrapper says failed (`NPU function error: X`)."""
    m = _WRAPPED_CALL.search(text)
    if m is None:
        return None
    api = next(g for g in m.groups() if g).split("::")[-1]
    for pattern, cat in _API_STAGES:
        if pattern.search(api):
            return cat
    return None


# E8 holds both the operator package's configuration and the TBE vector error manager's input
# checks, whose messages name the operator and the parameter (`In op[strided_slice_grad_d], the
# parameter[strides[0]] should be …`)
_VECTOR_OP_CHECK = re.compile(r"\bIn op(?:\[[^\]]{1,200}\])?,? the (?:parameter|input|attr\w*|dtype|shape|num of)\b")
# c10's assertion names the source it failed in (`INTERNAL ASSERT FAILED at "…/MulKernelNpuOpApi.cpp":26`)
_ASSERT_AT = re.compile(r"\bASSERT FAILED at \"([^\"]{1,300})\"")


def _assert_site(text: str) -> str | None:
    m = _ASSERT_AT.search(text)
    return m.group(1) if m else None


def _numbers(events: Iterable[ErrorEvent]) -> Iterable[tuple[str, int]]:
    for ev in events:
        for numeric in (ev.numeric, ev.block_numeric):
            for domain in ("acl", "aclnn", "hccl"):
                if domain in numeric:
                    yield domain, numeric[domain]


def _by_code(events: list[ErrorEvent], body: str, own: bool) -> str | None:
    """The category the CANN codes of `events` route to; a warning code counts only when they are
    the anchor's `own`."""
    for ev in events:
        for code in ev.codes:
            if not own and code.startswith("W"):
                continue
            if code.startswith("E8") and _VECTOR_OP_CHECK.search(ev.detail or ev.text):
                return "operator"  # the TBE vector error manager's check of an operator's input
            cat = category_of_code(code)
            if cat:
                return "memory" if cat == "operator" and _MEM_TEXT.search(body) else cat
    return None


# the register dump under the task scheduler's timeout exception names the kind of task that hung
# (`<exception_print>notify wait timeout`): a notify wait is a collective's wait on a peer, which
# the registry files under HCCL, not a kernel hung on this device
_HUNG_NOTIFY_WAIT = re.compile(r"\bnotify wait timeout\b", re.I)
TSCH_DUMP_LINES = 40


# how many frames of a traceback, counted from where the exception was raised, say where it failed:
# the frames further out are the call path (a model class wrapped by a compile decorator, a loader
# called from an engine's start), which names no part of the failure
RAISE_FRAMES = 3


# the log lines of Ascend's package installers (the driver, firmware, toolkit, kernels and NNAE/NNAL
# `.run` packages: `[Driver] [ERROR] ERR_NO:0x0091; ERR_DES: HwHiAiUser not exists!`), with or
# without their time: what failed is the machine's installation
_INSTALLER_LINE = re.compile(r"\[(?:Driver|Firmware|Toolkit|Kernels|NNAE|NNAL|NNRT|Toolbox|OPP|TFPlugin)\] "
                             r"(?:\[[\d :.-]+\] )?\[(?:ERROR|WARNING)\]")


# a compiler's error in a DKMS build tree or against the running kernel's headers: the driver's
# kernel modules are built when the driver installs, so what failed is the installation on this
# kernel (a kernel newer than the driver release supports, headers missing), not a job's code
_KERNEL_MODULE_BUILD = re.compile(r"/var/lib/dkms/|/lib/modules/[^/\s]+/build\b")


# MindSpore's kernel selection found no AI Core or AI CPU kernel of an operator for these inputs
# (`Can not select a valid kernel info for [BitwiseAnd] in AI CORE or AI CPU kernel info candidates
# list`): the operator's support of the dtypes, not a fault of the cores it names
_NO_KERNEL_SELECTED = re.compile(r"\b[Cc]an ?not select a valid kernel info\b")


def _is_frame(ev: ErrorEvent) -> bool:
    """A traceback's frame line behind any logger prefix (FRAME_RE reads a bare, indented line)."""
    return message_body(ev.detail or ev.text).lstrip().startswith('File "')


def _near_the_raise(anchor: ErrorEvent, group: list[ErrorEvent]) -> list[ErrorEvent]:
    """The event's other lines, less the traceback lines that lie more than RAISE_FRAMES frames
    out from where their exception was raised (the traceback above the anchor, or below a logged
    message that it explains)."""
    # a traceback another process printed (the engine re-raising a worker's failure) shows where it
    # relayed the failure, not where it happened: its frames are the call path too
    other = {id(e) for e in group if e.kind == K.CONTEXT and None not in (e.pid, anchor.pid) and e.pid != anchor.pid}
    context = sorted((e for e in group if e.kind == K.CONTEXT and e.ref.file_id == anchor.ref.file_id
                      and id(e) not in other), key=lambda e: e.ref.line)
    runs: list[list[ErrorEvent]] = []  # one traceback's lines each, in order
    for ev in context:
        if runs and ev.ref.line - runs[-1][-1].ref.line <= 2:
            runs[-1].append(ev)
        else:
            runs.append([ev])
    dropped: set[int] = set()
    for run in runs:
        frames = [e.ref.line for e in run if _is_frame(e)]
        if len(frames) > RAISE_FRAMES:
            kept = frames[-RAISE_FRAMES]  # the lines above this frame are the call path
            dropped.update(id(e) for e in run if e.ref.line < kept)
    return [e for e in group if id(e) not in dropped and id(e) not in other]


def route(anchor: ErrorEvent, group: list[ErrorEvent] | None = None) -> str:
    """The category of the event `anchor`; `group` holds the other lines of the same event (its
    wrappers, sync failures and relays in the same process), which carry the printed status."""
    # noise is no part of the event, and the notices of a death that followed it say nothing of it
    group = [e for e in (group or []) if e is not anchor and not e.benign and e.kind != K.ABORT]
    body = message_body(anchor.detail or anchor.text)
    if _CRASH_TEXT.search(body.strip()) or killed_notice(anchor.text):
        return "unknown"
    if anchor.module == "TSCH" and any(_HUNG_NOTIFY_WAIT.search(e.text) for e in group
                                       if e.module is None and 0 < e.ref.line - anchor.ref.line <= TSCH_DUMP_LINES):
        return "communication"  # the hung task its dump names was a wait on a peer's notify
    shaped = _shape(anchor, body)
    if shaped:
        return shaped
    if _INSTALLER_LINE.match((anchor.detail or anchor.text).lstrip()):  # an Ascend package's installer refused to install
        return "environment"
    if _MEDIA_PARAM_CHECK.search(body) or _COPY_KIND_REFUSED.search(anchor.detail or anchor.text) \
            or _NO_KERNEL_SELECTED.search(body):
        return "operator"
    # an anchor that is the device set-up failing: the statuses of later calls (a reset, a
    # stream) are its consequences, and say nothing of it
    setup = ("acl", DEVICE_SETUP_FAILED) in set(_numbers([anchor]))
    ge_failure = False  # the graph engine's generic status: after the detail's own code
    generic: str | None = None  # a generic internal error's category: after the call that returned it

    def by_status(events: list[ErrorEvent]) -> str | None:
        nonlocal ge_failure, generic
        for domain, value in _numbers(events):
            if domain == "aclnn" and value == 561000 and _COMM_TEXT.search(body):
                return "communication"
            if (domain, value) == ("acl", GE_FAILURE):
                ge_failure = True
                continue
            if domain == "acl" and value in GENERIC_STATUSES:
                generic = generic or category_of_number(domain, value)
                continue
            cat = category_of_number(domain, value)
            if cat:
                return "memory" if cat == "operator" and _MEM_TEXT.search(body) else cat
        return None

    # the anchor's own status, then its own CANN code (the registry's word on the error itself),
    # before the statuses its wrappers printed: a driver's `EL0005 The resources are busy` is not
    # the empty context that set_device then reported
    cat = by_status([anchor]) or _by_code([anchor], body, own=True)
    if cat is None and generic:  # the anchor's own generic status: its call says more, or it stands
        return _failing_api(anchor.detail or anchor.text) or generic
    cat = cat or (None if setup else by_status(group))
    if cat:
        return cat
    for ev in [anchor, *group]:
        api = _failing_api(ev.detail or ev.text)
        if api:
            return api
    if generic:  # a generic status the event's other lines printed, whose call said nothing
        return generic
    for ev in [anchor, *group]:
        module = _TORCH_NPU_MODULES.get(ev.numeric.get("torch_npu", -1) // 1000)
        if module:
            return module
    cat = _by_code(group, body, own=False)
    if cat:
        return cat
    if anchor.block_stage:  # its own TraceBack says which stage failed
        return anchor.block_stage
    if _TILING_FUNC.search(anchor.detail or anchor.text):  # an operator's tiling refused its shapes
        return "operator"
    if any(_MODEL_LOAD.search(e.detail or e.text) for e in [anchor, *group]):
        # an offline model that would not load: its file, its path, or a model converted for
        # another SoC or CANN release (the graph engine's generic status included)
        return "environment"
    if ge_failure:
        return "compile"
    if setup:
        # nothing in its own text or code says why: the set-up itself (driver, firmware, an
        # occupied or invisible device, the packages), not the job
        return "environment"
    # an offline model conversion that failed (ATC): whatever failed inside it failed while the
    # model was being compiled, an operator's shape check included
    if any(OFFLINE_CONVERSION.search(e.detail or e.text) for e in [anchor, *group]):
        return "compile"
    for ev in [anchor, *group]:
        if OP_CHECK_SOURCE.search(ev.text):  # the operator refused its inputs
            return "operator"
    site = anchor.throw_site or _assert_site(anchor.detail or anchor.text)
    if site and _OP_THROW_SITE.search(site):
        return "operator"  # torch_npu's operator layer (op-plugin, an ATB operation) refused it
    if anchor.raised_in and _SETTINGS_CHECK_SITE.search(anchor.raised_in):
        return "environment"  # a configuration's own check refused a setting: the job's set-up
    if anchor.module == "DRV":
        # a driver call that ran out of memory (`<errno:12, …>`, ENOMEM) or whose own event says so
        # (`heap_alloc_managed out of memory`, `halMemAlloc failed`) is an allocation, not the set-up
        if _ENOMEM.search(anchor.text) or any(e.kind == K.OOM or _MEM_TEXT.search(message_body(e.detail or e.text))
                                              for e in group):
            return "memory"
        return "environment"
    if anchor.module == "PRE_ACT":  # MindSpore's device memory pre-allocator
        return "memory"
    if any(_TRANSFER_SOURCE.search(t) for t in (anchor.text, anchor.detail or "")):  # the module, before its words
        return "communication"
    if BUILD_STOPPED.search(anchor.text) and not _KERNEL_MODULE_BUILD.search(anchor.text):
        return "compile"  # the anchor is a build tool's stop on a failed target: the build, whatever the target's name
    command = _FAILED_COMMAND.search(anchor.detail or anchor.text)
    if command and _COMPILER_PROGRAMS.match(command.group(1)):
        return "compile"  # a compiler or a build tool the job ran failed
    if _INSTALL_TREE_OP.search(anchor.detail or anchor.text):
        return "environment"
    if any(_ASCENDC_SOURCE.search(t) for t in (anchor.text, anchor.detail or "")):
        return "operator"  # a kernel broke a rule of the Ascend C API it is written in
    # a folder named `operator` or `hccl` in the message says nothing of the failure (the frames
    # near the raise are read with their paths: the code that raised is named by them)
    for text in [_FS_PATH.sub(" ", body)] + [message_body(e.detail or e.text) for e in _near_the_raise(anchor, group)]:
        for pattern, cat in ((_ENV_INIT, "environment"), (_MEM_TEXT, "memory"), (_DEVICE_TEXT, "device"),
                             (_COMM_TEXT, "communication"),
                             (_COMPILE_TEXT, "compile"), (_OP_TEXT, "operator"), (_STREAM_TEXT, "stream_event")):
            if pattern.search(text):
                return cat
    if anchor.module == "OP":
        return "operator"
    if anchor.raised_in and _OP_CALL_SITE.search(anchor.raised_in):
        return "operator"  # no word said otherwise: the registered operator's own check raised it
    if any(BUILD_STOPPED.search(e.text) or COMPILER_SUMMARY.search(e.text) for e in group) \
            or building([anchor.text] + [e.text for e in group]):
        # a build stopped, or a compiler summed up the errors it printed (clang); a build's own
        # error that no word routes (CMake's `Parse error`): what failed was the build
        return "compile"
    if ("acl", DEVICE_SETUP_FAILED) in set(_numbers(group)):
        # the calls above the anchor report that the device could not be set up, and nothing in
        # the event says why: the set-up itself (driver, firmware, an occupied device)
        return "environment"
    return "unknown"


def killed_notice(text: str) -> bool:
    """Whether a line is a shell's notice that its child was killed (`KILLED_NOTICE`)."""
    return KILLED_NOTICE.match(message_body(text).strip()) is not None


@functools.lru_cache(maxsize=1 << 16)  # a live re-diagnosis asks again for every event of the storm
def is_crash_evidence(text: str) -> bool:
    """Whether one line shows a native crash or a death by signal (`_CRASH_EVIDENCE`)."""
    return _CRASH_EVIDENCE.search(text.strip()) is not None


def crashed(anchor: ErrorEvent, events: Iterable[ErrorEvent]) -> bool:
    """Whether the anchor's process shows crash evidence: the anchor itself, or a crash or abort
    line of its file or of a stream not known to be another process (a console that names no pid
    or rank). Only then may a diagnosis say "the process crashed"."""
    def same_process(ev: ErrorEvent) -> bool:
        if ev.ref.file_id == anchor.ref.file_id:
            return True
        other_pid = None not in (ev.pid, anchor.pid) and ev.pid != anchor.pid
        other_rank = None not in (ev.rank, anchor.rank) and ev.rank != anchor.rank
        return not (other_pid or other_rank)

    return any((ev is anchor or same_process(ev)) and (
        ev.kind == K.CRASH or (ev.kind == K.ABORT and not stop_signal(ev.text)) or is_crash_evidence(ev.text) or is_crash_evidence(ev.detail or ""))
        for ev in [anchor, *events])


def classify(ev: ErrorEvent) -> str:
    """The category of one event on its own (its block's statuses included)."""
    return route(ev)


def building(texts: list[str]) -> bool:
    """Whether the failure happened while building or converting something (a compiler's
    diagnostic, CMake, make, an offline model conversion, a package build), not while a job ran:
    its evidence is the build's own output, not the CANN logs of a run."""
    return any(is_build_line(strip_prefixes(clean(text))[0].strip()) for text in texts)


def compile_stage(texts: list[str]) -> str | None:
    """Which stage of torch.compile / ACL graph failed, from the words around the failure."""
    joined = "\n".join(texts)
    if re.search(r"10702[5-9]|10703\d|107040|capture mode|[Cc]apture", joined):
        return "capture"
    if re.search(r"[Rr]eplay", joined):
        return "replay"
    if re.search(r"npugraph_ex|torchair|npu_backend", joined):
        return "backend"
    if re.search(r"[Dd]ynamo|AOTAutograd|aot_eager|FakeTensor|graph break|BackendCompilerFailed", joined):
        return "dynamo"
    return None
