#!/usr/bin/env python3
"""
The Fortran bindings of rdmpi, generated from one description: the C prototypes and integer
constants of include/mpi.h, plus bindings/fortran/facts.txt (what a prototype cannot tell:
choice buffers, LOGICALs, array lengths, ...). Writes into OUTDIR:
  mpif.h            fixed/free-form include file (constants, handles, sentinels, functions)
  mpi.f90           the `mpi` module: the same constants, explicit interfaces
  mpi_f08.f90       the `mpi_f08` module: handle types, MPI_Status, optional ierror,
                    TYPE(*), DIMENSION(..) choice buffers
  fortran_glue.c    the Fortran-callable symbols: mpi_x_ and pmpi_x_ for every MPI_X and
                    PMPI_X of mpi.h (mpif.h, `mpi`), and mpi_f08's specifics: mpi_x_f08_ (the
                    same entry) for the calls without a choice buffer, mpi_x_f08ts_ (gfortran's
                    descriptors) for the calls with one; pmpi_ likewise
  fortran_handles.h the integer values of the predefined handles (for fortran_handles.c)
A function with a parameter this script cannot map, and no fact about it, stops the build.

Usage: gen.py MPI_H FACTS OUTDIR | gen.py MPI_H FACTS --list  (each function and its forms)
"""
import fnmatch
import os
import re
import sys

# ---- the C types -------------------------------------------------------------------------
# handle types: C type -> (conversion name in MPI_X_c2f/f2c, f08 type)
HANDLES = {
    'MPI_Comm': ('Comm', 'MPI_Comm'), 'MPI_Datatype': ('Type', 'MPI_Datatype'),
    'MPI_Group': ('Group', 'MPI_Group'), 'MPI_Op': ('Op', 'MPI_Op'),
    'MPI_Info': ('Info', 'MPI_Info'), 'MPI_Errhandler': ('Errhandler', 'MPI_Errhandler'),
    'MPI_Request': ('Request', 'MPI_Request'), 'MPI_Message': ('Message', 'MPI_Message'),
    'MPI_Win': ('Win', 'MPI_Win'), 'MPI_File': ('File', 'MPI_File'),
    'MPI_Session': ('Session', 'MPI_Session'),
}
# integer types other than int: C type -> Fortran kind parameter
KINDS = {'MPI_Aint': 'MPI_ADDRESS_KIND', 'MPI_Offset': 'MPI_OFFSET_KIND',
         'MPI_Count': 'MPI_COUNT_KIND', 'MPI_Fint': None}

# The predefined handles, in the order of their integer values (NULL is 0, then 1, 2, ...).
# These values are the ABI of compiled Fortran programs: append, never reorder.
PREDEFINED = {
    'Comm': ['MPI_COMM_NULL', 'MPI_COMM_WORLD', 'MPI_COMM_SELF'],
    'Group': ['MPI_GROUP_NULL', 'MPI_GROUP_EMPTY'],
    'Errhandler': ['MPI_ERRHANDLER_NULL', 'MPI_ERRORS_ARE_FATAL', 'MPI_ERRORS_RETURN',
                   'MPI_ERRORS_ABORT'],
    'Info': ['MPI_INFO_NULL', 'MPI_INFO_ENV'],
    'Request': ['MPI_REQUEST_NULL'],
    'Message': ['MPI_MESSAGE_NULL', 'MPI_MESSAGE_NO_PROC'],
    'Op': ['MPI_OP_NULL', 'MPI_MAX', 'MPI_MIN', 'MPI_SUM', 'MPI_PROD', 'MPI_LAND', 'MPI_BAND',
           'MPI_LOR', 'MPI_BOR', 'MPI_LXOR', 'MPI_BXOR', 'MPI_MINLOC', 'MPI_MAXLOC',
           'MPI_REPLACE', 'MPI_NO_OP'],
    'Win': ['MPI_WIN_NULL'],
    'File': ['MPI_FILE_NULL'],
    'Session': ['MPI_SESSION_NULL'],
    'Type': ['MPI_DATATYPE_NULL', 'MPI_CHAR', 'MPI_SIGNED_CHAR', 'MPI_UNSIGNED_CHAR', 'MPI_BYTE',
             'MPI_PACKED', 'MPI_SHORT', 'MPI_UNSIGNED_SHORT', 'MPI_INT', 'MPI_UNSIGNED',
             'MPI_LONG', 'MPI_UNSIGNED_LONG', 'MPI_LONG_LONG_INT', 'MPI_LONG_LONG',
             'MPI_UNSIGNED_LONG_LONG', 'MPI_FLOAT', 'MPI_DOUBLE', 'MPI_LONG_DOUBLE', 'MPI_WCHAR',
             'MPI_C_BOOL', 'MPI_INT8_T', 'MPI_INT16_T', 'MPI_INT32_T', 'MPI_INT64_T',
             'MPI_UINT8_T', 'MPI_UINT16_T', 'MPI_UINT32_T', 'MPI_UINT64_T', 'MPI_AINT',
             'MPI_OFFSET', 'MPI_COUNT', 'MPI_C_COMPLEX', 'MPI_C_FLOAT_COMPLEX',
             'MPI_C_DOUBLE_COMPLEX', 'MPI_C_LONG_DOUBLE_COMPLEX', 'MPI_FLOAT_INT',
             'MPI_DOUBLE_INT', 'MPI_LONG_INT', 'MPI_2INT', 'MPI_SHORT_INT',
             'MPI_LONG_DOUBLE_INT',
             'MPI_INTEGER', 'MPI_REAL', 'MPI_DOUBLE_PRECISION', 'MPI_COMPLEX',
             'MPI_DOUBLE_COMPLEX', 'MPI_LOGICAL', 'MPI_CHARACTER', 'MPI_INTEGER1',
             'MPI_INTEGER2', 'MPI_INTEGER4', 'MPI_INTEGER8', 'MPI_REAL4', 'MPI_REAL8',
             'MPI_COMPLEX8', 'MPI_COMPLEX16', 'MPI_2INTEGER', 'MPI_2REAL',
             'MPI_2DOUBLE_PRECISION', 'MPI_CXX_BOOL',
             'MPI_CXX_FLOAT_COMPLEX', 'MPI_CXX_DOUBLE_COMPLEX',
             'MPI_CXX_LONG_DOUBLE_COMPLEX', 'MPI_REAL16', 'MPI_COMPLEX32', 'MPI_LB', 'MPI_UB'],
}
# Predefined handles MPI-3 removed: in mpif.h and `mpi` (old codes), never in mpi_f08
NOT_F08 = {'MPI_LB', 'MPI_UB'}
# Sentinel addresses Fortran passes for C's special pointers: name -> (common block, dims)
SENTINELS = [('MPI_BOTTOM', 'rdmpi_bottom', ''), ('MPI_IN_PLACE', 'rdmpi_in_place', ''),
             ('MPI_STATUS_IGNORE', 'rdmpi_status_ignore', '(MPI_STATUS_SIZE)'),
             ('MPI_STATUSES_IGNORE', 'rdmpi_statuses_ignore', '(MPI_STATUS_SIZE,1)'),
             ('MPI_ERRCODES_IGNORE', 'rdmpi_errcodes_ignore', '(1)'),
             ('MPI_UNWEIGHTED', 'rdmpi_unweighted', '(1)'),
             ('MPI_WEIGHTS_EMPTY', 'rdmpi_weights_empty', '(1)'),
             ('MPI_ARGV_NULL', 'rdmpi_argv_null', '(1)'),
             ('MPI_ARGVS_NULL', 'rdmpi_argvs_null', '(1,1)')]
# The predefined attribute callbacks as Fortran procedures (callbacks.c)
# (callbacks.c, procs.c): name -> its mpi_f08 ABSTRACT INTERFACE (None: EXTERNAL, MPI-1's)
FORTRAN_CALLBACKS = {
    'MPI_COMM_NULL_COPY_FN': 'MPI_Comm_copy_attr_function',
    'MPI_COMM_DUP_FN': 'MPI_Comm_copy_attr_function',
    'MPI_COMM_NULL_DELETE_FN': 'MPI_Comm_delete_attr_function',
    'MPI_TYPE_NULL_COPY_FN': 'MPI_Type_copy_attr_function',
    'MPI_TYPE_DUP_FN': 'MPI_Type_copy_attr_function',
    'MPI_TYPE_NULL_DELETE_FN': 'MPI_Type_delete_attr_function',
    'MPI_WIN_NULL_COPY_FN': 'MPI_Win_copy_attr_function',
    'MPI_WIN_DUP_FN': 'MPI_Win_copy_attr_function',
    'MPI_WIN_NULL_DELETE_FN': 'MPI_Win_delete_attr_function',
    'MPI_NULL_COPY_FN': None, 'MPI_DUP_FN': None, 'MPI_NULL_DELETE_FN': None,
    'MPI_CONVERSION_FN_NULL': 'MPI_Datarep_conversion_function',
}

# The ABSTRACT INTERFACEs of mpi_f08 for procedure arguments, as the standard names and
# declares them (named as mpi.h's typedefs are): name -> (arguments, declarations).
_COPY = ('old, keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror',
         ['TYPE(%s) :: old', 'INTEGER :: keyval, ierror',
          'INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out',
          'LOGICAL :: flag'])
_DELETE = ('obj, keyval, attribute_val, extra_state, ierror',
           ['TYPE(%s) :: obj', 'INTEGER :: keyval, ierror',
            'INTEGER(KIND=MPI_ADDRESS_KIND) :: attribute_val, extra_state'])
F08_ABSTRACT = {
    'MPI_User_function': ('invec, inoutvec, len, datatype',
                          ['TYPE(C_PTR), VALUE :: invec, inoutvec', 'INTEGER :: len',
                           'TYPE(MPI_Datatype) :: datatype']),
    'MPI_Comm_errhandler_function': ('comm, error_code',
                                     ['TYPE(MPI_Comm) :: comm', 'INTEGER :: error_code']),
    'MPI_Win_errhandler_function': ('win, error_code',
                                    ['TYPE(MPI_Win) :: win', 'INTEGER :: error_code']),
    'MPI_File_errhandler_function': ('file, error_code',
                                     ['TYPE(MPI_File) :: file', 'INTEGER :: error_code']),
    'MPI_Grequest_query_function': ('extra_state, status, ierror',
                                    ['INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state',
                                     'TYPE(MPI_Status) :: status', 'INTEGER :: ierror']),
    'MPI_Grequest_free_function': ('extra_state, ierror',
                                   ['INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state',
                                    'INTEGER :: ierror']),
    'MPI_Grequest_cancel_function': ('extra_state, complete, ierror',
                                     ['INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state',
                                      'LOGICAL :: complete', 'INTEGER :: ierror']),
    'MPI_Datarep_conversion_function': (
        'userbuf, datatype, count, filebuf, position, extra_state, ierror',
        ['TYPE(C_PTR), VALUE :: userbuf, filebuf', 'TYPE(MPI_Datatype) :: datatype',
         'INTEGER :: count, ierror', 'INTEGER(KIND=MPI_OFFSET_KIND) :: position',
         'INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state']),
    'MPI_Datarep_extent_function': ('datatype, extent, extra_state, ierror',
                                    ['TYPE(MPI_Datatype) :: datatype',
                                     'INTEGER(KIND=MPI_ADDRESS_KIND) :: extent, extra_state',
                                     'INTEGER :: ierror']),
}
for _k in ('Comm', 'Type', 'Win'):
    _t = 'MPI_Datatype' if _k == 'Type' else 'MPI_' + _k
    F08_ABSTRACT['MPI_%s_copy_attr_function' % _k] = (_COPY[0], [_COPY[1][0] % _t] + _COPY[1][1:])
    F08_ABSTRACT['MPI_%s_delete_attr_function' % _k] = (_DELETE[0],
                                                          [_DELETE[1][0] % _t] + _DELETE[1][1:])


def abstract_interfaces():
    o = ['    ABSTRACT INTERFACE']
    for name, (args, decls) in F08_ABSTRACT.items():
        o += ['        SUBROUTINE %s(%s)' % (name, args), '            IMPORT',
              '            IMPLICIT NONE']
        o += ['            ' + d for d in decls]
        o.append('        END SUBROUTINE')
    o.append('    END INTERFACE')
    return o
OFFSET_CONSTS = []   # (name, value) of mpi.h's long long constants (read_header)
STATUS_SIZE = 6   # MPI_Status in MPI_Fint units (fortran_handles.c asserts it)


def die(msg):
    sys.stderr.write('bindings/fortran/gen.py: error: %s\n' % msg)
    sys.exit(1)


# ---- reading mpi.h and the facts --------------------------------------------------------
PROTO = re.compile(r'^RDMPI_API\s+(int|double|MPI_Aint|MPI_Fint|[A-Za-z_]\w*)\s+(P?MPI_\w+)\s*\((.*)\);\s*$')
PARAM = re.compile(r'^(const\s+)?([A-Za-z_]\w*)\s*(\*{0,3})\s*(\w+)\s*((?:\[\d*\])*)$')


def read_header(path):
    funcs, consts = [], []
    text = open(path).read()
    # join continued prototype lines
    text = re.sub(r',\s*\n\s*', ', ', text)
    for line in text.split('\n'):
        m = re.match(r'^#define\s+(MPI_[A-Z0-9_]+)\s+\(?(-?\d+)\)?\s*(/\*.*)?$', line)
        if m:
            consts.append((m.group(1), int(m.group(2))))
            continue
        # a long long constant (MPI_DISPLACEMENT_CURRENT): INTEGER(KIND=MPI_OFFSET_KIND)
        m = re.match(r'^#define\s+(MPI_[A-Z0-9_]+)\s+\(?(-?\d+)LL\)?\s*(/\*.*)?$', line)
        if m:
            OFFSET_CONSTS.append((m.group(1), int(m.group(2))))
            continue
        m = PROTO.match(line.strip())
        if m:
            funcs.append((m.group(2), m.group(1), m.group(3).strip()))
    return funcs, consts


def read_facts(path):
    facts = []
    for line in open(path):
        line = line.split('#', 1)[0].strip() if not line.lstrip().startswith('#') else ''
        if not line:
            continue
        w = line.split()
        if len(w) < 3:
            die('facts.txt: short line: %s' % line)
        kv = {}
        rest = []
        for x in w[3:]:
            if '=' in x and not rest:
                k, v = x.split('=', 1)
                kv[k] = v
            else:
                rest.append(x)
        if '=' in w[2]:
            k, v = w[2].split('=', 1)
            kv[k] = v
            fact = None
        else:
            fact = w[2]
        facts.append((w[0], w[1], fact, kv, ' '.join(rest)))
    return facts


def facts_for(facts, fname, pname):
    base = fname[1:] if fname.startswith('PMPI_') else fname
    out, kv = None, {}
    for pat, par, fact, k, rest in facts:
        if par != pname or not fnmatch.fnmatchcase(base, pat):
            continue
        if fact is not None:
            out = (fact, rest)
        kv.update(k)
    return out, kv


# ---- parameter kinds ---------------------------------------------------------------------
class Param:
    def __init__(self, fn, decl, facts):
        m = PARAM.match(decl.strip())
        if not m:
            die('%s: cannot parse parameter "%s"' % (fn, decl))
        self.const = bool(m.group(1))
        self.ctype = m.group(2)
        self.ptr = len(m.group(3))
        self.name = m.group(4)
        self.dims = m.group(5)
        f, self.kv = facts_for(facts, fn, self.name)
        self.fact = f[0] if f else None
        self.kind = self.classify(fn)

    def classify(self, fn):
        t, p, d, f = self.ctype, self.ptr, self.dims, self.fact
        arr = d == '[]'
        if f == 'drop':
            return 'drop'
        if f == 'procedure':
            if p == 1 and (t.endswith('_function') or t.endswith('_fn')):
                return 'procedure'
            die('%s: fact procedure does not fit parameter %s' % (fn, self.name))
        if f == 'extra_state' and t == 'void' and p == 1:
            return 'attr_set'
        if t == 'void':
            if p == 1 and f in ('choice', 'attr_get', 'attr_set', 'baseptr', 'detach'):
                return f
            die('%s: parameter %s (void *) needs a fact in facts.txt (choice, attr_get, ...)'
                % (fn, self.name))
        if t == 'char':
            # arrays of strings (MPI_Comm_spawn's argv, spawn_multiple's commands and argvs):
            # the functions are hand-written (spawn.c); these kinds give their interfaces
            if f in ('str_array', 'argvs') and ((p == 1 and arr) or (p == 2 and arr)):
                return f
            if p == 1 and not d:
                return 'str_in' if self.const else 'str_out'
            die('%s: parameter %s (char%s%s) has no Fortran form: add a fact'
                % (fn, self.name, '*' * p, d))
        if t == 'int':
            if d == '[][3]' and p == 0:
                return 'int_array3'
            if f == 'logical':
                if p == 0 and not d:
                    return 'logical_in'
                if p == 1 and not d:
                    return 'logical_out'
            if f == 'logical_array' and (arr or p == 1):
                return 'logical_array'
            if f == 'weights' and (arr or p == 1):
                return 'weights'
            if f == 'array' and p == 1:
                return 'int_array'
            if f == 'index' and p == 1 and not d:
                return 'index'
            if f == 'index' and arr:
                return 'index_array'
            if f is not None:
                die('%s: fact %s does not fit parameter %s' % (fn, f, self.name))
            if p == 0 and not d:
                return 'int_in'
            if p == 1 and not d:
                return 'int_ref'
            if p == 0 and arr:
                return 'int_array'
        if f == 'fint' and t == 'MPI_Aint':
            # MPI-1's address-sized arguments, a default INTEGER in Fortran
            if p == 0 and not d:
                return 'fint_in'
            if p == 1 and not d:
                return 'fint_out'
            if p == 0 and arr and 'len' in self.kv:
                return 'fint_array'
            die('%s: fact fint does not fit parameter %s (an array needs len=)' % (fn, self.name))
        if t in KINDS:
            if p == 0 and not d:
                return 'kint_in'
            if (p == 1 and not d) or (p == 0 and arr):
                return 'kint_ref'
        if t in HANDLES:
            if p == 0 and not d:
                return 'handle_in'
            if p == 1 and not d and f != 'array':
                return 'handle_ref'
            if (p == 0 and arr) or (p == 1 and f == 'array'):
                if 'len' not in self.kv:
                    die('%s: array of handles %s needs a len= fact in facts.txt' % (fn, self.name))
                return 'handle_array'
        if t == 'MPI_Status':
            if p == 1 and not d:
                return 'status'
            if p == 0 and arr:
                return 'statuses'
        if p == 1 and (t.endswith('_function') or t.endswith('_fn')):
            die('%s: parameter %s is a callback (%s *): Fortran procedures need a hand-written '
                'trampoline (fact procedure, function fact hand) or a skip fact'
                % (fn, self.name, t))
        die('%s: parameter %s (%s%s %s%s) has no Fortran form: add a fact to facts.txt or a '
            'kind to gen.py' % (fn, self.name, 'const ' if self.const else '', t, '*' * p, d))


class Func:
    def __init__(self, name, ret, params, facts):
        self.name = name
        self.base = name[1:] if name.startswith('PMPI_') else name
        self.ret = ret
        f, fkv = facts_for(facts, name, '*')
        self.ffact = f
        # f08=no: MPI-1's calls MPI-3 removed, which mpi_f08 never had
        self.no_f08 = fkv.get('f08') == 'no'
        self.hand = False
        self.variadic = False
        self.params = []
        if self.ffact and self.ffact[0] == 'hand':
            # the C glue is hand-written (callbacks.c); the interfaces are generated
            self.ffact = None
            self.hand = True
        if self.ffact:
            return
        # a variadic C function (MPI_Pcontrol): Fortran has only the named parameters, and
        # MPI_PCONTROL has no IERROR
        self.variadic = params.endswith(', ...')
        if self.variadic:
            params = params[:-len(', ...')]
        if ret not in ('int', 'double', 'MPI_Aint'):
            die('%s: returns %s, which has no Fortran form: add a c-only or skip fact' % (name, ret))
        if params != 'void':
            self.params = [Param(name, p, facts) for p in params.split(',')]
        self.choice = any(p.kind == 'choice' for p in self.params)

    def fparams(self):
        return [p for p in self.params if p.kind != 'drop']


# ---- the C glue ----------------------------------------------------------------------------
def glue(funcs):
    o = ['/* Generated by bindings/fortran/gen.py from include/mpi.h and facts.txt: do not edit. */',
         '#include "bindings/fortran/glue.h"', '']
    for cv in sorted(set(v[0] for v in HANDLES.values())):
        for op, rel in (('eq', '=='), ('ne', '!=')):
            o += ['FG_API MPI_Fint rdmpi_f08_%s_%s_(const MPI_Fint *a, const MPI_Fint *b)'
                  % (op, cv.lower()), '{', '    return *a %s *b ? FG_TRUE : FG_FALSE;' % rel,
                  '}', '']
    for f in funcs:
        if f.ffact or f.hand:
            continue
        o += glue_func(f)
    return '\n'.join(o) + '\n'


def typed_choices(fp):
    """The choice buffers followed by their count (an int) and datatype: name -> (count,
    datatype). A strided mpi_f08 section of these can be described by a datatype. Only when
    every buffer of the call has its own: MPI_Reduce's sendbuf and recvbuf share one count and
    type, which cannot describe a section for one and plain memory for the other."""
    out = {}
    for i, p in enumerate(fp[:-2]):
        c, t = fp[i + 1], fp[i + 2]
        if p.kind == 'choice' and c.kind == 'int_in' and t.kind == 'handle_in' and \
                t.ctype == 'MPI_Datatype':
            out[p.name] = (c.name, t.name)
    if len(out) != sum(1 for p in fp if p.kind == 'choice'):
        return {}
    return out


# How mpi_f08 passes a strided array section (a(1:n:2), b(i, :)) of each kind of call
# (MPI_SUBARRAYS_SUPPORTED is .TRUE. there): a buffer with its own count and datatype goes as a
# datatype over the section (fg_section), any other through a contiguous copy (glue.h: the
# copy path), except in the calls below.
# Memory that must be simply contiguous (MPI-3.1: a window's or the attached buffer's memory
# is one region): a strided section is refused with MPI_ERR_BUFFER.
SECT_REGION = ('MPI_Buffer_attach', 'MPI_Win_create', 'MPI_Win_attach')
# Calls that name memory by its first element, or use one element: its address.
SECT_FIRST = re.compile(r'^MPI_(Get_address|Free_mem|Win_detach|Fetch_and_op|Compare_and_swap|'
                        r'File_\w+_end)$')
# Calls whose operation goes on after they return with no request to complete it (one-sided
# ones end with the epoch, split collectives with their _end): no copy could come back, so
# their buffers must have their own count and datatype (they all do).
SECT_NO_COPY = re.compile(r'^MPI_(Put|Get|Accumulate|Get_accumulate|File_\w+_begin)$')
# Collectives whose count is one rank's block, not the whole buffer: always the copy path.
SECT_BLOCKS = re.compile(r'^MPI_I?(neighbor_)?(gather|scatter|allgather|alltoall)$', re.I)


def fast_handles(fp):
    """The condition under which every handle argument of a call is a predefined one
    (MPI_COMM_WORLD, MPI_INTEGER, ...), converted by a table load; '' when it has none."""
    return ' && '.join('fh_%s_is_pre(*%s)' % (HANDLES[p.ctype][0], p.name)
                       for p in fp if p.kind == 'handle_in')


def f08_alias(low):
    """mpi_f08's specific X_f08 of a call without a choice buffer: the mpif.h entry under the
    specific's external name (f08_specific)."""
    return 'FG_F08_ALIAS(%s_, %s_f08_)' % (low, low)


def f08_entry(f, fp, cparams, body):
    """mpi_f08's specific X_f08ts of a call with a choice buffer (f08_specific): gfortran
    passes each TYPE(*), DIMENSION(..) buffer as its own descriptor (fg_gfc_t), made a C
    descriptor here; strided sections are passed as the call's kind allows (SECT_*)."""
    low = f.name.lower()
    out = []
    dsig = []
    for p, c in zip(fp, cparams):
        dsig.append('CFI_cdesc_t *%s' % p.name if p.kind == 'choice' else c)
    lens = ['size_t %s_len' % p.name for p in fp if p.kind in ('str_in', 'str_out')]
    out.append('static void fe_%s(%s)' % (low, ', '.join(dsig + ['MPI_Fint *ierr'] + lens)))
    out.append('{')
    typed = typed_choices(fp)
    if SECT_BLOCKS.match(f.base):
        typed = {}
    choices = [p for p in fp if p.kind == 'choice']
    mode = {}
    for p in choices:
        if f.base in SECT_REGION:
            mode[p.name] = 'region'
        elif SECT_FIRST.match(f.base):
            mode[p.name] = 'first'
        elif p.name in typed:
            mode[p.name] = 'typed'
        elif SECT_NO_COPY.match(f.base):
            mode[p.name] = 'region'
        else:
            mode[p.name] = 'copy'
    copies = any(m == 'copy' for m in mode.values())
    if sum(1 for m in mode.values() if m == 'copy') > 4:
        die('%s: more copied buffers than glue.h\'s FG_COPY_MAX' % f.name)
    reqs = [p for p in fp if p.kind == 'handle_ref' and p.ctype == 'MPI_Request']
    out.append('    MPI_Fint rc = MPI_SUCCESS;')
    if copies:
        out.append('    fg_copies_t cs;')
        out.append('    cs.n = 0;')
    swap = {}
    for p in choices:
        n = p.name
        if mode[n] == 'typed':
            out.append('    fg_section_t %s_s;' % n)
            out.append('    %s_s.made = MPI_DATATYPE_NULL;' % n)
    for p in choices:
        n = p.name
        m = mode[n]
        out.append('    void *%s_a;' % n)
        if m == 'region':
            out.append('    if (fg_desc(%s, &%s_a, &rc)) goto out;' % (n, n))
        elif m == 'first':
            out.append('    %s_a = fg_buf(%s->base_addr);' % (n, n))
        elif m == 'copy':
            out.append('    if (fg_desc_copy(%s, &%s_a, &cs, %d, &rc)) goto out;'
                       % (n, n, 0 if p.const else 1))
        else:
            # a datatype over the section (api_type_section), freed once the call has started
            cnt, dt = typed[n]
            out.append('    int %s_k = fg_desc_typed(%s, &%s_a, %s, %s, &%s_s, &rc);'
                       % (n, n, n, cnt, dt, n))
            out.append('    if (%s_k) goto out;' % n)
            swap[cnt] = '%s_s.count' % n
            swap[dt] = '%s_s.type' % n
    dconv = []
    for p in fp:
        if p.kind == 'choice':
            dconv.append('%s_a' % p.name)
        else:
            dconv.append(swap.get(p.name, p.name))
    dlens = ['%s_len' % p.name for p in fp if p.kind in ('str_in', 'str_out')]
    out.append('    %s(%s);' % (body, ', '.join(dconv + ['&rc'] + dlens + ['0'])))
    if copies and reqs:
        out.append('    fg_copies_request(&cs, %s, rc);' % reqs[0].name)
    if any('goto out' in x for x in out):
        out.append('out:')
    if copies:
        out.append('    fg_copies_end(&cs, rc);')
    for p in choices:
        if mode[p.name] == 'typed':
            out.append('    fg_section_done(&%s_s);' % p.name)
    out.append('    if (ierr)')
    out.append('        *ierr = rc;')
    out.append('}')
    # the external specific: gfortran's descriptors in. Contiguous buffers (the common case)
    # go straight to the call as addresses, as from mpif.h; otherwise C descriptors are made
    # on the stack of an out-of-line function, so the fast path keeps a small frame
    gsig = []
    for p, c in zip(fp, cparams):
        gsig.append('fg_gfc_t *%s' % p.name if p.kind == 'choice' else c)
    gsig = ', '.join(gsig + ['MPI_Fint *ierr'] + lens)
    lnames = [x.split()[-1] for x in lens]
    out.append('static __attribute__((noinline)) void fs_%s(%s)' % (low, gsig))
    out.append('{')
    for p in fp:
        if p.kind == 'choice':
            out.append('    fg_cdesc_t %s_d;' % p.name)
    args = ['fg_from_gfc(%s, &%s_d)' % (p.name, p.name) if p.kind == 'choice' else p.name
            for p in fp]
    out.append('    fe_%s(%s);' % (low, ', '.join(args + ['ierr'] + lnames)))
    out.append('}')
    out.append('FG_API void %s_f08ts_(%s)' % (low, gsig))
    out.append('{')
    cond = ' && '.join(['fg_gfc_contiguous(%s)' % p.name for p in fp if p.kind == 'choice'] +
                       ([fast_handles(fp)] if fast_handles(fp) else []))
    out.append('    if (__builtin_expect(%s, 1)) {' % cond)
    args = ['fg_buf(%s->base_addr)' % p.name if p.kind == 'choice' else p.name for p in fp]
    out.append('        %s(%s);' % (body, ', '.join(args + ['ierr'] + lnames + ['1'])))
    out.append('        return;')
    out.append('    }')
    out.append('    fs_%s(%s);' % (low, ', '.join([p.name for p in fp] + ['ierr'] + lnames)))
    out.append('}')
    return out


def attr_lang(p):
    """The language tag of a Fortran attribute value (src/core/attr.h)."""
    return 'CORE_ATTR_INT' if p.kv.get('int') else 'CORE_ATTR_AINT'


def attr_target(f):
    """The API call that sets or gets an attribute for Fortran (api/attr.h: the value stays
    tagged with its language), for MPI_Comm/Type/Win_set/get_attr and MPI_Attr_put/get."""
    if not any(p.fact in ('attr_get', 'attr_set') for p in f.params):
        return None
    b = f.base[4:].lower()
    b = {'attr_put': 'comm_set_attr', 'attr_get': 'comm_get_attr'}.get(b, b)
    if b not in ('comm_set_attr', 'comm_get_attr', 'type_set_attr', 'type_get_attr',
                 'win_set_attr', 'win_get_attr'):
        die('%s: an attribute value in a function gen.py has no API call for' % f.name)
    return 'api_%s_lang' % b


def glue_func(f):
    low = f.name.lower()
    fp = f.fparams()
    pre, args, post, cparams, lens, late = [], [], [], [], [], []
    for p in f.params:
        n = p.name
        k = p.kind
        if k == 'drop':
            args.append('NULL')
            continue
        if k == 'choice':
            cparams.append('void *%s' % n)
            args.append(n)
            continue
        if k in ('str_in', 'str_out'):
            cparams.append('char *%s' % n)
            lens.append('size_t %s_len' % n)
        elif k == 'kint_in' or k == 'kint_ref':
            cparams.append('%s *%s' % (p.ctype, n))
        else:
            cparams.append('MPI_Fint *%s' % n)
        if k == 'int_in':
            args.append('(int)*%s' % n)
        elif k == 'int_ref' and p.kv.get('fstrlen'):
            # a string length that counts the NUL in C and not in Fortran (Info_get_string's
            # buflen): 0 stays 0 (nothing written), the length out is the value's
            pre.append('int %s_f = *%s, %s_c = %s_f > 0 ? %s_f + 1 : 0;' % ((n,) * 5))
            args.append('&%s_c' % n)
            post.append('if (rc == MPI_SUCCESS && flag_c) *%s = %s_c - 1;' % (n, n))
        elif k == 'int_ref':
            args.append('(int *)%s' % n)
        elif k == 'int_array':
            args.append('(int *)%s' % n)
        elif k == 'index':
            args.append('(int *)%s' % n)
            post.append('if (rc == MPI_SUCCESS && *%s >= 0) (*%s)++;' % (n, n))
        elif k == 'index_array':
            args.append('(int *)%s' % n)
            post.append('if (rc == MPI_SUCCESS) fg_indices(%s, %s);' % (n, p.kv['len']))
        elif k == 'int_array3':
            args.append('(int(*)[3])%s' % n)
        elif k == 'weights':
            args.append('fg_weights(%s)' % n)
        elif k == 'logical_in':
            args.append('(*%s != 0)' % n)
        elif k == 'logical_out':
            pre.append('int %s_c = 0;' % n)
            args.append('&%s_c' % n)
            post.append('*%s = %s_c ? FG_TRUE : FG_FALSE;' % (n, n))
        elif k == 'logical_array':
            args.append('(int *)%s' % n)
            if 'len' in p.kv:
                post.append('if (rc == MPI_SUCCESS) fg_logicals(%s, %s);' % (n, p.kv['len']))
        elif k == 'fint_in':
            args.append('(MPI_Aint)*%s' % n)
        elif k == 'fint_out':
            # an address that does not fit the INTEGER is an error, never a truncated value
            pre.append('MPI_Aint %s_c = 0;' % n)
            args.append('&%s_c' % n)
            post.append('if (rc == MPI_SUCCESS) { *%s = (MPI_Fint)%s_c; '
                        'if ((MPI_Aint)*%s != %s_c) rc = MPI_ERR_ARG; }' % (n, n, n, n))
        elif k == 'fint_array':
            ln = p.kv['len']
            late.append('int %s_n = %s;' % (n, ln))
            late.append('MPI_Aint %s_s[FG_STACK], *%s_c = %s_n <= FG_STACK ? %s_s : '
                        'malloc((size_t)%s_n * sizeof(*%s_c));' % (n, n, n, n, n, n))
            late.append('if (!%s_c) { rc = MPI_ERR_NO_MEM; goto out; }' % n)
            late.append('for (int i = 0; i < %s_n; i++) %s_c[i] = %s[i];' % (n, n, n))
            args.append('%s_c' % n)
            post.append('if (%s_c != %s_s) free(%s_c);' % (n, n, n))
        elif k == 'kint_in':
            args.append('*%s' % n)
        elif k == 'kint_ref':
            args.append(n)
        elif k == 'handle_in':
            cv = HANDLES[p.ctype][0]
            # fast: the caller saw a predefined handle (fast_handles), a table load
            pre.append('%s %s_c = fast ? fh_%s_pre(*%s) : fh_%s_f2c(*%s);' % (p.ctype, n, cv, n, cv, n))
            args.append('%s_c' % n)
        elif k == 'handle_ref':
            cv = HANDLES[p.ctype][0]
            pre.append('%s %s_c = fh_%s_f2c(*%s), %s_in = %s_c;' % (p.ctype, n, cv, n, n, n))
            args.append('&%s_c' % n)
            post.append('if (%s_c != %s_in) *%s = fh_%s_c2f(%s_c);' % (n, n, n, cv, n))
        elif k == 'handle_array':
            cv = HANDLES[p.ctype][0]
            ln = p.kv['len']
            # after the other conversions: the length may come from a converted handle
            late.append('int %s_n = %s;' % (n, ln))
            late.append('%s %s_s[FG_STACK], *%s_c = %s_n <= FG_STACK ? %s_s : '
                        'malloc((size_t)%s_n * sizeof(*%s_c));' % (p.ctype, n, n, n, n, n, n))
            late.append('if (!%s_c) { rc = MPI_ERR_NO_MEM; goto out; }' % n)
            late.append('for (int i = 0; i < %s_n; i++) %s_c[i] = fh_%s_f2c(%s[i]);'
                        % (n, n, cv, n))
            args.append('%s_c' % n)
            if not p.const:
                post.append('for (int i = 0; i < %s_n; i++) if (%s_c[i] != fh_%s_f2c(%s[i])) '
                            '%s[i] = fh_%s_c2f(%s_c[i]);' % (n, n, cv, n, n, cv, n))
            post.append('if (%s_c != %s_s) free(%s_c);' % (n, n, n))
        elif k == 'status':
            pre.append('MPI_Status %s_s, *%s_c = fg_status_in(%s, &%s_s);' % (n, n, n, n))
            args.append('%s_c' % n)
            post.append('fg_status_out(%s, %s_c);' % (n, n))
        elif k == 'statuses':
            args.append('fg_statuses(%s)' % n)
        elif k == 'str_in':
            trim = 'fg_str_in_trim' if p.kv.get('trim') == 'both' else 'fg_str_in'
            pre.append('char *%s_c = %s(%s, %s_len);' % (n, trim, n, n))
            pre.append('if (!%s_c) { rc = MPI_ERR_NO_MEM; goto out; }' % n)
            args.append('%s_c' % n)
            post.append('free(%s_c);' % n)
        elif k == 'str_out':
            ml = p.kv.get('maxlen', '0')
            pre.append('char *%s_c = fg_str_buf(%s_len, %s);' % (n, n, ml))
            pre.append('if (!%s_c) { rc = MPI_ERR_NO_MEM; goto out; }' % n)
            args.append('%s_c' % n)
            # with a flag, the caller's string is left as it was when there is no value
            cond = ['rc == MPI_SUCCESS']
            if any(q.name == 'flag' and q.kind == 'logical_out' for q in f.params):
                cond.append('flag_c')
            if 'when' in p.kv:
                cond.append(p.kv['when'])
            post.append('if (%s) fg_str_out(%s, %s_len, %s_c);' % (' && '.join(cond), n, n, n))
            post.append('free(%s_c);' % n)
        elif k == 'attr_get' and p.fact == 'attr_get':
            # the API's get for Fortran's kind writes the INTEGER or the address-sized one
            # (MPI-3.1 17.2.7: a value C set is its address, a predefined one its int)
            args.append('%s, (void *)%s' % (attr_lang(p), n))
        elif k == 'attr_set' and p.fact == 'attr_set':
            args.append('%s, (const void *)%s' % (attr_lang(p), n))
        elif k == 'attr_set':   # an extra_state
            if p.kv.get('int'):
                args.append('(void *)(intptr_t)*(MPI_Fint *)%s' % n)
            else:
                args.append('(void *)(intptr_t)*(MPI_Aint *)%s' % n)
        elif k == 'baseptr':
            args.append(n)
        elif k == 'detach':
            pre.append('void *%s_c = NULL;' % n)
            args.append('&%s_c' % n)
    pre += late
    call = '%s(%s)' % (attr_target(f) or f.name, ', '.join(args))
    out = []
    fsig = ', '.join(cparams + (['MPI_Fint *ierr'] if f.ret == 'int' else []) + lens) or 'void'
    if f.ret != 'int':
        rt = 'double' if f.ret == 'double' else 'MPI_Aint'
        out.append('FG_API %s %s_(%s)' % (rt, low, fsig))
        out.append('{')
        out += ['    ' + x for x in pre]
        out.append('    return %s;' % call)
        out.append('}')
        out.append(f08_alias(low))
        out.append('')
        return out
    # one body, two entries when there is a choice buffer (void * from mpif.h/mpi, a
    # descriptor from mpi_f08)
    body = 'fb_%s' % low
    bsig = ', '.join(cparams + ['MPI_Fint *ierr'] + lens + ['int fast'])
    # inlined into each entry (mpif.h's, mpi_f08's fast path): the call's whole cost in Fortran
    # is these conversions
    out.append('FH_INLINE_FN void %s(%s)' % (body, bsig))
    out.append('{')
    out.append('    int rc;')
    out += ['    ' + x for x in pre]
    out.append('    rc = %s;' % call)
    out += ['    ' + x for x in post]
    if any('goto out' in x for x in pre):
        out.append('out:')
    out.append('    if (ierr)')
    out.append('        *ierr = rc;')
    out.append('}')
    cn = [x.split()[-1].lstrip('*') for x in cparams]
    ln = [x.split()[-1] for x in lens]
    # the mpif.h / mpi entry: sentinels become C's special pointers
    conv = []
    for p in fp:
        conv.append('fg_buf(%s)' % p.name if p.kind == 'choice' else p.name)
    fast = fast_handles(fp)
    if fast:
        # the handles other than predefined ones (and what they cost: registers kept across
        # a pool lookup) out of this entry's path
        out.append('static __attribute__((noinline)) void fl_%s(%s)' % (low, fsig))
        out.append('{')
        out.append('    %s(%s);' % (body, ', '.join(conv + ['ierr'] + ln + ['0'])))
        out.append('}')
    out.append('FG_API void %s_(%s)' % (low, fsig))
    out.append('{')
    if fast:
        out.append('    if (__builtin_expect(%s, 1)) {' % fast)
        out.append('        %s(%s);' % (body, ', '.join(conv + ['ierr'] + ln + ['1'])))
        out.append('        return;')
        out.append('    }')
        out.append('    fl_%s(%s);' % (low, ', '.join(cn + ['ierr'] + ln)))
    else:
        out.append('    %s(%s);' % (body, ', '.join(conv + ['ierr'] + ln + ['0'])))
    out.append('}')
    if has_baseptr(f):
        # `mpi`'s X_CPTR specific: the same call, its baseptr a TYPE(C_PTR)
        out.append('FG_API void %s_cptr_(%s)' % (low, fsig))
        out.append('{')
        out.append('    %s(%s);' % (body, ', '.join(conv + ['ierr'] + ln + ['0'])))
        out.append('}')
    if f.no_f08:
        pass
    elif f.choice:
        out += f08_entry(f, fp, cparams, body)
    else:
        out.append(f08_alias(low))
    out.append('')
    return out


# ---- Fortran declarations ------------------------------------------------------------------
def ftype(p, f08):
    k = p.kind
    if k in ('int_in', 'int_ref', 'index', 'fint_in', 'fint_out'):
        return 'INTEGER'
    if k == 'fint_array':
        return 'INTEGER', '(*)'
    if k in ('int_array', 'weights', 'index_array'):
        return 'INTEGER', '(*)'
    if k == 'int_array3':
        return 'INTEGER', '(3,*)'
    if k in ('logical_in', 'logical_out'):
        return 'LOGICAL'
    if k == 'logical_array':
        return 'LOGICAL', '(*)'
    if k in ('kint_in', 'kint_ref'):
        kind = KINDS[p.ctype]
        t = 'INTEGER(KIND=%s)' % kind if kind else 'INTEGER'
        return (t, '(*)') if (p.dims == '[]') else t
    if k in ('handle_in', 'handle_ref', 'handle_array'):
        t = 'TYPE(%s)' % HANDLES[p.ctype][1] if f08 else 'INTEGER'
        return (t, '(*)') if k == 'handle_array' else t
    if k == 'status':
        return 'TYPE(MPI_Status)' if f08 else ('INTEGER', '(MPI_STATUS_SIZE)')
    if k == 'statuses':
        return ('TYPE(MPI_Status)', '(*)') if f08 else ('INTEGER', '(MPI_STATUS_SIZE,*)')
    if k in ('str_in', 'str_out'):
        return 'CHARACTER(LEN=*)'
    if k == 'str_array':
        return 'CHARACTER(LEN=*)', '(*)'
    if k == 'argvs':
        return 'CHARACTER(LEN=*)', '(count,*)'
    if k in ('attr_get', 'attr_set'):
        return 'INTEGER' if p.kv.get('int') else 'INTEGER(KIND=MPI_ADDRESS_KIND)'
    if k == 'baseptr':
        return 'TYPE(C_PTR)' if f08 else 'INTEGER(KIND=MPI_ADDRESS_KIND)'
    if k == 'detach':
        return 'TYPE(C_PTR)' if f08 else None   # choice in mpi
    raise AssertionError(k)


def intent(p):
    if p.kind in ('int_in', 'logical_in', 'kint_in', 'fint_in', 'handle_in', 'str_in', 'attr_set',
                  'str_array', 'argvs'):
        return ', INTENT(IN)'
    if p.kind in ('str_out', 'attr_get', 'baseptr'):
        return ', INTENT(OUT)'
    return ''


def wrap(line, indent):
    """Free-form continuation at 100 columns."""
    out = []
    while len(line) > 100:
        cut = line.rfind(', ', 0, 98) + 1
        out.append(line[:cut] + ' &')
        line = ' ' * (indent + 4) + line[cut:].lstrip()
    out.append(line)
    return out


def has_baseptr(f):
    return any(p.kind == 'baseptr' for p in f.params)


def f08_specific(f):
    """mpi_f08's specific procedure name of f (MPI-3.1 17.1.5): X_f08ts when it has
    TYPE(*), DIMENSION(..) buffers, else X_f08; the generic X resolves to it. External
    procedures of those names (gfortran: x_f08ts_, x_f08_), so a tool can define its own
    MPI_Send_f08ts and call PMPI_Send (PMPI_Send_f08ts) from it."""
    return f.name + ('_f08ts' if f.choice else '_f08')


def interface(f, f08, ind='    ', cptr=False):
    """f's interface body; cptr: `mpi`'s specific X_CPTR whose baseptr is a TYPE(C_PTR);
    f08: mpi_f08's specific (f08_specific)."""
    fp = f.fparams()
    names = [p.name for p in fp]
    o = []
    ierror = f.ret == 'int' and not f.variadic
    if ierror:
        names.append('ierror')
    fname = f.name + '_CPTR' if cptr else f08_specific(f) if f08 else f.name
    if f.ret == 'int':
        head = '%sSUBROUTINE %s(%s)' % (ind, fname, ', '.join(names))
    else:
        head = '%sFUNCTION %s(%s)' % (ind, fname, ', '.join(names))
    o += wrap(head, len(ind))
    i2 = ind + '    '
    o.append(i2 + 'IMPORT')
    o.append(i2 + 'IMPLICIT NONE')
    asyncbuf = any(p.ctype == 'MPI_Request' for p in fp) or f.base.startswith('MPI_I')
    for p in fp:
        if p.kind == 'procedure':
            if f08 and p.ctype in F08_ABSTRACT:
                o.append(i2 + 'PROCEDURE(%s) :: %s' % (p.ctype, p.name))
            else:
                o.append(i2 + 'EXTERNAL :: %s' % p.name)
            continue
        if p.kind == 'choice' or (p.kind == 'detach' and not f08):
            if f08:
                o.append(i2 + 'TYPE(*), DIMENSION(..)%s :: %s'
                         % (', ASYNCHRONOUS' if asyncbuf else '', p.name))
            else:
                o.append(i2 + '!GCC$ ATTRIBUTES NO_ARG_CHECK :: %s' % p.name)
                o.append(i2 + 'TYPE(*), DIMENSION(*) :: %s' % p.name)
            continue
        t = ftype(p, f08 or (cptr and p.kind == 'baseptr'))
        dims = ''
        if isinstance(t, tuple):
            t, dims = t
        o.append(i2 + '%s%s :: %s%s' % (t, intent(p), p.name, dims))
    if ierror:
        o.append(i2 + 'INTEGER%s :: ierror' % (', OPTIONAL, INTENT(OUT)' if f08 else ''))
    elif f.ret == 'int':
        pass
    elif f.ret == 'double':
        o.append(i2 + 'DOUBLE PRECISION :: %s' % fname)
    else:
        o.append(i2 + 'INTEGER(KIND=MPI_ADDRESS_KIND) :: %s' % fname)
    o.append(ind + ('END SUBROUTINE' if f.ret == 'int' else 'END FUNCTION'))
    return o


# ---- constants -------------------------------------------------------------------------------
def fixed(lines):
    for l in lines:
        if len(l) > 72:
            die('mpif.h line longer than 72 columns: %s' % l)
    return lines


def int_consts(consts, f08=False):
    o = []
    seen = set()
    for name, val in consts:
        # MPI_F_STATUS_SIZE, MPI_F_SOURCE...: C's view of a Fortran status, not Fortran's
        if name in seen or name in ('MPI_STATUS_SIZE',) or name.startswith('MPI_F_'):
            continue
        seen.add(name)
        o.append('      INTEGER %s' % name)
        o.append('      PARAMETER (%s=%d)' % (name, val))
    for name, val in [('MPI_STATUS_SIZE', STATUS_SIZE), ('MPI_SOURCE', 1), ('MPI_TAG', 2),
                      ('MPI_ERROR', 3), ('MPI_ADDRESS_KIND', 8), ('MPI_OFFSET_KIND', 8),
                      ('MPI_COUNT_KIND', 8), ('MPI_INTEGER_KIND', 4)]:
        o.append('      INTEGER %s' % name)
        o.append('      PARAMETER (%s=%d)' % (name, val))
    for name, val in OFFSET_CONSTS:
        o.append('      INTEGER(KIND=MPI_OFFSET_KIND) %s' % name)
        o.append('      PARAMETER (%s=%d)' % (name, val))
    o.append('      LOGICAL MPI_SUBARRAYS_SUPPORTED')
    # mpi_f08's TYPE(*), DIMENSION(..) buffers take any array section (f08_entry); mpif.h and
    # `mpi` get addresses, so the compiler copies a section in and out (MPI-3.1 17.1.2 lets
    # the value differ between the interfaces)
    o.append('      PARAMETER (MPI_SUBARRAYS_SUPPORTED=%s)' % ('.TRUE.' if f08 else '.FALSE.'))
    o.append('      LOGICAL MPI_ASYNC_PROTECTS_NONBLOCKING')
    o.append('      PARAMETER (MPI_ASYNC_PROTECTS_NONBLOCKING=.FALSE.)')
    return o


def handle_consts(f08):
    o = []
    for kind, names in PREDEFINED.items():
        f08t = [v[1] for v in HANDLES.values() if v[0] == kind][0]
        for i, n in enumerate(names):
            if f08 and n in NOT_F08:
                continue
            if f08:
                o.append('    TYPE(%s), PARAMETER :: %s = %s(%d)' % (f08t, n, f08t, i))
            else:
                o.append('      INTEGER %s' % n)
                o.append('      PARAMETER (%s=%d)' % (n, i))
    return o


def sentinels(f08):
    """The common blocks whose addresses stand for C's special pointers."""
    o = []
    for name, common, dims in SENTINELS:
        if f08:
            if 'STATUS' in name:
                decl = 'TYPE(MPI_Status) :: %s%s' % (name, '(1)' if 'STATUSES' in name else '')
            elif 'ARGV' in name:
                decl = 'CHARACTER(LEN=1) :: %s%s' % (name, dims)
            else:
                decl = 'INTEGER :: %s%s' % (name, dims)
            o += ['    ' + decl, '    COMMON /%s/ %s' % (common, name)]
        else:
            t = 'CHARACTER*1' if 'ARGV' in name else 'INTEGER'
            o += ['      %s %s%s' % (t, name, dims), '      COMMON /%s/ %s' % (common, name)]
    return o


def mpif_h(funcs, consts):
    o = ['! mpif.h of rdmpi, generated by bindings/fortran/gen.py: do not edit.',
         '! Fixed and free form. Handles are INTEGERs; see README (Fortran).']
    o += int_consts(consts)
    # INTEGER is 4 bytes in librdmpi: a program compiled with -fdefault-integer-8 (-i8) would
    # pass 8-byte handles, counts and IERRORs; this constant divides by zero then, so such a
    # compile stops here instead of miscomputing at run time (README, Fortran)
    o += ['! Division by zero on the next line: INTEGER is not 4 bytes',
          '! (-fdefault-integer-8, -i8), which rdmpi does not support.',
          '      INTEGER RDMPI_NEEDS_4_BYTE_INTEGER',
          '      PARAMETER (RDMPI_NEEDS_4_BYTE_INTEGER=1/MAX(0,1-ABS(KIND(0)-4)))']
    o += status_type(False, '      ')
    o += handle_consts(False)
    o += sentinels(False)
    for cb in FORTRAN_CALLBACKS:
        o.append('      EXTERNAL %s' % cb)
    for f in funcs:
        if f.ffact or f.ret == 'int':
            continue
        # REAL*8, not DOUBLE PRECISION: -fdefault-real-8 without -fdefault-double-8 makes
        # DOUBLE PRECISION 16 bytes, and MPI_Wtime's C result is an 8-byte double
        t = 'REAL*8' if f.ret == 'double' else 'INTEGER(KIND=MPI_ADDRESS_KIND)'
        o.append('      %s %s' % (t, f.name))
        o.append('      EXTERNAL %s' % f.name)
    return '\n'.join(fixed(o)) + '\n'


def sizeof_interface(f08, ind='        '):
    """MPI_SIZEOF(X, SIZE, IERROR) of `mpi` and mpi_f08: one BIND(C) specific whose X is
    TYPE(*), DIMENSION(..), so every intrinsic type and kind, scalar or array of any rank,
    matches it; the C side reads the element size from X's descriptor (glue_util.c).
    mpif.h has none (the standard gives MPI_SIZEOF to the modules only)."""
    return [ind + 'SUBROUTINE MPI_SIZEOF(x, size, ierror) BIND(C, NAME="rdmpi_sizeof")',
            ind + '    IMPORT',
            ind + '    IMPLICIT NONE',
            ind + '    TYPE(*), DIMENSION(..), INTENT(IN) :: x',
            ind + '    INTEGER, INTENT(OUT) :: size',
            ind + '    INTEGER%s :: ierror' % (', OPTIONAL, INTENT(OUT)' if f08 else ', INTENT(OUT)'),
            ind + 'END SUBROUTINE']


def sync_reg_interface(f08, ind='        '):
    """MPI_F_SYNC_REG(buf) (MPI-3.1 17.1.8) and its PMPI_ name: a call to an external
    procedure that does nothing, so the compiler must assume buf is read and written there and
    cannot keep it in a register across a nonblocking operation's start and completion.
    mpif.h programs call the same external symbols (glue_util.c)."""
    o = []
    for name in ('MPI_F_SYNC_REG', 'PMPI_F_SYNC_REG'):
        if f08:
            # the generic MPI_F_sync_reg and its specific MPI_F_sync_reg_f08ts
            o += [ind[4:] + 'INTERFACE %s' % name,
                  ind + 'SUBROUTINE %s_f08ts(buf)' % name,
                  ind + '    IMPORT', ind + '    IMPLICIT NONE',
                  ind + '    TYPE(*), DIMENSION(..) :: buf',
                  ind + 'END SUBROUTINE', ind[4:] + 'END INTERFACE']
            continue
        else:
            o += [ind + 'SUBROUTINE %s(buf)' % name, ind + '    IMPORT', ind + '    IMPLICIT NONE',
                  ind + '    !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf',
                  ind + '    TYPE(*), DIMENSION(*) :: buf']
        o.append(ind + 'END SUBROUTINE')
    return o


def status_type(f08, ind='    '):
    """TYPE(MPI_Status): mpi_f08's status, also in `mpi` and mpif.h for MPI_STATUS_F082F and
    MPI_STATUS_F2F08 (MPI-3.1 17.2.5). BIND(C) with the same components everywhere, so the
    three definitions are one type: a status of an mpi_f08 routine converts in a `mpi` one."""
    t = 'INTEGER(C_INT)' if f08 else 'INTEGER'
    return [ind + 'TYPE, BIND(C) :: MPI_Status',
            ind + '  %s :: MPI_SOURCE, MPI_TAG, MPI_ERROR' % t,
            ind + '  %s :: rdmpi_cancelled, rdmpi_nbytes(2)' % t,
            ind + 'END TYPE MPI_Status']


def status_conv_interface(ind='        ', f08=True):
    """MPI_Status_f082f and MPI_Status_f2f08 (and PMPI_) of all three interfaces: between
    TYPE(MPI_Status) and the INTEGER array of mpif.h and `mpi` (glue_util.c; the C functions
    of the same names are in mpi.h). mpif.h calls them without an interface."""
    o = []
    for pre in ('MPI', 'PMPI'):
        for name, a, b in (('Status_f082f', 'f08_status', 'f_status'),
                           ('Status_f2f08', 'f_status', 'f08_status')):
            # mpi_f08: the generic and its specific X_f08; `mpi`: the plain name
            o += [ind[4:] + 'INTERFACE %s_%s' % (pre, name) if f08 else None,
                  ind + 'SUBROUTINE %s_%s%s(%s, %s, ierror)' % (pre, name, '_f08' if f08 else '',
                                                              a, b),
                  ind + '    IMPORT', ind + '    IMPLICIT NONE',
                  ind + '    TYPE(MPI_Status), INTENT(%s) :: f08_status'
                  % ('IN' if a == 'f08_status' else 'OUT'),
                  ind + '    INTEGER, INTENT(%s) :: f_status(MPI_STATUS_SIZE)'
                  % ('IN' if a == 'f_status' else 'OUT'),
                  ind + '    INTEGER%s :: ierror' % (', OPTIONAL, INTENT(OUT)' if f08 else
                                                   ', INTENT(OUT)'),
                  ind + 'END SUBROUTINE', ind[4:] + 'END INTERFACE' if f08 else None]
    return [x for x in o if x is not None]


def mpi_module(funcs, consts):
    o = ['! The `mpi` module: generated by bindings/fortran/gen.py; do not edit.',
         'MODULE mpi',
         '    USE, INTRINSIC :: ISO_C_BINDING, ONLY: C_PTR',
         '    IMPLICIT NONE']
    o += ['    ' + x.strip() for x in int_consts(consts)]
    o += ['    ' + x.strip() for x in handle_consts(False)]
    o += ['    ' + x.strip() for x in sentinels(False)]
    o += status_type(False)
    o += ['    EXTERNAL :: ' + cb for cb in FORTRAN_CALLBACKS]
    o.append('    INTERFACE')
    for f in funcs:
        if not f.ffact and not has_baseptr(f):
            o += interface(f, False, '        ')
    o += sizeof_interface(False)
    o += sync_reg_interface(False)
    o += status_conv_interface(f08=False)
    o.append('    END INTERFACE')
    # MPI-3.1 17.1.5: with TYPE(C_PTR), MPI_ALLOC_MEM, MPI_WIN_ALLOCATE(_SHARED) and
    # MPI_WIN_SHARED_QUERY are generic: the INTEGER(KIND=MPI_ADDRESS_KIND) baseptr, or a
    # TYPE(C_PTR) one through the specific X_CPTR
    for f in funcs:
        if not f.ffact and has_baseptr(f):
            o.append('    INTERFACE %s' % f.name)
            o += interface(f, False, '        ')
            o += interface(f, False, '        ', cptr=True)
            o.append('    END INTERFACE')
    o.append('END MODULE mpi')
    return '\n'.join(o) + '\n'


def f08_module(funcs, consts):
    o = ['! The `mpi_f08` module: generated by bindings/fortran/gen.py; do not edit.',
         'MODULE mpi_f08',
         '    USE, INTRINSIC :: ISO_C_BINDING, ONLY: C_PTR, C_INT, C_BOOL, C_CHAR',
         '    IMPLICIT NONE']
    o += ['    ' + x.strip() for x in int_consts(consts, f08=True)]
    for kind, (cv, t) in sorted(HANDLES.items()):
        o += ['    TYPE, BIND(C) :: %s' % t, '        INTEGER(C_INT) :: MPI_VAL',
              '    END TYPE %s' % t]
    o += status_type(True)
    o += handle_consts(True)
    o += sentinels(True)
    o += abstract_interfaces()
    for cb, iface in FORTRAN_CALLBACKS.items():
        o.append('    PROCEDURE(%s) :: %s' % (iface, cb) if iface else '    EXTERNAL :: ' + cb)
    # handle comparisons: C functions (fortran_glue.c), so the module needs no object file
    for op, rel in (('eq', '=='), ('ne', '/=')):
        o.append('    INTERFACE OPERATOR(%s)' % rel)
        for kind, (cv, t) in sorted(HANDLES.items()):
            # not BIND(C): a default LOGICAL result (external name rdmpi_f08_eq_comm_)
            o += ['        FUNCTION rdmpi_f08_%s_%s(a, b)' % (op, cv.lower()),
                  '            IMPORT', '            IMPLICIT NONE',
                  '            TYPE(%s), INTENT(IN) :: a, b' % t,
                  '            LOGICAL :: rdmpi_f08_%s_%s' % (op, cv.lower()),
                  '        END FUNCTION']
        o.append('    END INTERFACE')
    for f in funcs:
        if not f.ffact and not f.no_f08:
            o.append('    INTERFACE %s' % f.name)
            o += interface(f, True, '        ')
            o.append('    END INTERFACE')
    o.append('    INTERFACE')
    o += sizeof_interface(True)
    o.append('    END INTERFACE')
    o += sync_reg_interface(True, '        ')
    o += status_conv_interface()
    o.append('END MODULE mpi_f08')
    return '\n'.join(o) + '\n'


def handles_h():
    o = ['/* Generated by bindings/fortran/gen.py: the integer values of the predefined',
         ' * handles (the ABI of compiled Fortran programs). */']
    for kind, names in PREDEFINED.items():
        o.append('#define FH_%s_TABLE { %s }' % (kind.upper(), ', '.join(names)))
        o.append('#define FH_%s_NPREDEF %d' % (kind.upper(), len(names)))
    o.append('#define FH_STATUS_SIZE %d' % STATUS_SIZE)
    for name, common, dims in SENTINELS:
        o.append('#define FH_SENTINEL_%s %s_' % (name[4:], common))
    return '\n'.join(o) + '\n'


def main():
    if len(sys.argv) != 4:
        die('usage: gen.py MPI_H FACTS OUTDIR|--list|--list-skipped')
    protos, consts = read_header(sys.argv[1])
    facts = read_facts(sys.argv[2])
    funcs = [Func(n, r, p, facts) for n, r, p in protos]
    names = set(n for n, _, _ in protos)
    if sys.argv[3] == '--list':
        for f in funcs:
            if f.ffact:
                print('%s: %s %s' % (f.name, f.ffact[0], f.ffact[1]))
            elif f.hand:
                print('%s: mpif.h mpi mpi_f08 (C glue hand-written: callbacks.c)' % f.name)
            else:
                forms = 'mpif.h mpi mpi_f08 (%s)' % f08_specific(f)
                print('%s: %s' % (f.name, forms))
        return
    if sys.argv[3] == '--list-skipped':
        for f in funcs:
            if f.ffact and f.ffact[0] == 'skip' and not f.name.startswith('PMPI_'):
                print('%s: %s' % (f.name, f.ffact[1]))
        return
    for f in funcs:
        if f.name.startswith('MPI_') and not f.ffact and 'P' + f.name not in names:
            sys.stderr.write('gen.py: note: %s has no PMPI_ form in mpi.h\n' % f.name)
    out = sys.argv[3]
    files = {'fortran_glue.c': glue(funcs), 'mpif.h': mpif_h(funcs, consts),
             # the modules declare the PMPI_ names too (profiling tools written in Fortran)
             'mpi.f90': mpi_module(funcs, consts),
             'mpi_f08.f90': f08_module(funcs, consts),
             'fortran_handles.h': handles_h()}
    for name, text in files.items():
        path = os.path.join(out, name)
        old = open(path).read() if os.path.exists(path) else None
        if old != text:   # unchanged outputs keep their times: no needless rebuilds
            with open(path + '.tmp', 'w') as fh:
                fh.write(text)
            os.replace(path + '.tmp', path)


main()
