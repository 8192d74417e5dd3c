! `use mpi` with procedure arguments (EXTERNAL; INTEGER handles, statuses as INTEGER arrays):
! a user reduction, communicator, window and file error handlers, comm, type and window keyvals
! with user and predefined copy/delete procedures, the MPI-1 MPI_Keyval_create with MPI_DUP_FN
! and INTEGER attributes, a generalized request (query/free/cancel), a data representation with
! MPI_CONVERSION_FN_NULL and an extent procedure, window attributes as values, MPI_REAL16 and
! MPI_COMPLEX32, MPI_Pack_external/Unpack_external/Pack_external_size and MPI_Pcontrol.
module fort_procs_mpi_state
    use mpi
    implicit none
    integer :: op_calls = 0, op_badtype = 0
    integer :: eh_calls = 0, eh_code = 0
    integer :: eh_comm
    integer :: eh_win
    integer :: eh_file
    integer :: copies = 0, deletes = 0
    integer :: gq = 0, gf = 0, gc = 0
    logical :: gc_complete = .true.
    integer(kind=MPI_ADDRESS_KIND) :: g_extra = 0
    integer :: ext_calls = 0
contains
    subroutine plus1(a, b, len, datatype)
        integer :: len, datatype
        integer :: a(len), b(len)
        integer :: i
        op_calls = op_calls + 1
        if (datatype /= MPI_INTEGER) op_badtype = op_badtype + 1
        do i = 1, len
            b(i) = a(i) + b(i) + 1
        end do
    end subroutine

    subroutine comm_eh(comm, code)
        integer :: comm
        integer :: code
        eh_calls = eh_calls + 1
        eh_comm = comm
        eh_code = code
    end subroutine

    subroutine win_eh(win, code)
        integer :: win
        integer :: code
        eh_calls = eh_calls + 1
        eh_win = win
        eh_code = code
    end subroutine

    subroutine file_eh(file, code)
        integer :: file
        integer :: code
        eh_calls = eh_calls + 1
        eh_file = file
        eh_code = code
    end subroutine

    subroutine copy_plus1(old, keyval, extra_state, val_in, val_out, flag, ierror)
        integer :: old
        integer :: keyval, ierror
        integer(kind=MPI_ADDRESS_KIND) :: extra_state, val_in, val_out
        logical :: flag
        copies = copies + 1
        val_out = val_in + extra_state
        flag = .true.
        ierror = MPI_SUCCESS
    end subroutine

    subroutine comm_del(obj, keyval, val, extra_state, ierror)
        integer :: obj
        integer :: keyval, ierror
        integer(kind=MPI_ADDRESS_KIND) :: val, extra_state
        if (val >= 100) deletes = deletes + 1
        ierror = MPI_SUCCESS
    end subroutine

    subroutine win_del(obj, keyval, val, extra_state, ierror)
        integer :: obj
        integer :: keyval, ierror
        integer(kind=MPI_ADDRESS_KIND) :: val, extra_state
        if (val == 77 .and. extra_state == 5) deletes = deletes + 1
        ierror = MPI_SUCCESS
    end subroutine

    subroutine gquery(extra_state, status, ierror)
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        integer :: status(MPI_STATUS_SIZE)
        integer :: ierror
        gq = gq + 1
        g_extra = extra_state
        call MPI_Status_set_elements(status, MPI_INTEGER, 3, ierror)
        call MPI_Status_set_cancelled(status, .false., ierror)
        status(MPI_SOURCE) = 7
        status(MPI_TAG) = 8
        ierror = MPI_SUCCESS
    end subroutine

    subroutine gfree(extra_state, ierror)
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        integer :: ierror
        gf = gf + 1
        extra_state = extra_state - 1
        ierror = MPI_SUCCESS
    end subroutine

    subroutine gcancel(extra_state, complete, ierror)
        integer(kind=MPI_ADDRESS_KIND) :: extra_state
        logical :: complete
        integer :: ierror
        gc = gc + 1
        gc_complete = complete
        ierror = MPI_SUCCESS
    end subroutine

    subroutine extent_fn(datatype, extent, extra_state, ierror)
        integer :: datatype
        integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
        integer :: ierror
        ext_calls = ext_calls + 1
        extent = 4
        if (datatype /= MPI_INTEGER .or. extra_state /= 11) extent = -1
        ierror = MPI_SUCCESS
    end subroutine
end module

program fort_procs_mpi
    use mpi
    use fort_procs_mpi_state
    implicit none
    integer :: rank, size, ierr, v(2), kv, cls
    integer :: op
    integer :: dup, dup2
    integer :: eh
    integer :: win
    integer :: fh
    integer :: t2, t3
    integer :: req
    integer :: st(MPI_STATUS_SIZE)
    integer(kind=MPI_ADDRESS_KIND) :: val, extra, sz, pos
    ! changed by the free procedure behind the compiler's back
    integer(kind=MPI_ADDRESS_KIND), volatile :: gstate
    integer :: wbuf(4), ints(2), back(2), cnt
    integer(kind=1) :: packed(8)
    real(kind=16) :: q
    complex(kind=16) :: zq
    logical :: flag
    character(len=64) :: path

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)

    ! a user reduction called with Fortran arguments
    call MPI_Op_create(plus1, .true., op, ierr)
    v = [rank, 1]
    call MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
    call check(v(1) == size * (size - 1) / 2 + size - 1, 'user op result')
    call check(v(2) == 2 * size - 1, 'user op result 2')
    call check(op_badtype == 0, 'user op sees MPI_INTEGER')
    ! some rank applied it (which ones depends on the algorithm)
    call MPI_Allreduce(op_calls, cnt, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call check(size == 1 .or. cnt > 0, 'user op called')
    call MPI_Op_free(op, ierr)
    call check(op == MPI_OP_NULL, 'op freed')

    ! a communicator error handler: by MPI_Comm_call_errhandler and by a failing call
    call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
    call MPI_Comm_create_errhandler(comm_eh, eh, ierr)
    call MPI_Comm_set_errhandler(dup, eh, ierr)
    call MPI_Errhandler_free(eh, ierr)
    call MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER, ierr)
    call check(eh_calls == 1 .and. eh_comm == dup .and. eh_code == MPI_ERR_OTHER, 'comm handler')
    call MPI_Send(v, -1, MPI_INTEGER, 0, 0, dup, ierr)
    call MPI_Error_class(eh_code, cls, ierr)
    call check(eh_calls == 2 .and. cls == MPI_ERR_COUNT, 'comm handler on an error')

    ! keyvals: a user copy and delete, and MPI_COMM_NULL_COPY_FN
    call MPI_Comm_create_keyval(copy_plus1, comm_del, kv, 1_MPI_ADDRESS_KIND, ierr)
    call MPI_Comm_set_attr(dup, kv, 100_MPI_ADDRESS_KIND, ierr)
    call MPI_Comm_dup(dup, dup2, ierr)
    call MPI_Comm_get_attr(dup2, kv, val, flag, ierr)
    call check(copies == 1 .and. flag .and. val == 101, 'user copy procedure')
    call MPI_Comm_free(dup2, ierr)
    call check(deletes == 1, 'user delete procedure')
    call MPI_Comm_delete_attr(dup, kv, ierr)
    call check(deletes == 2, 'user delete procedure by delete_attr')
    call MPI_Comm_free_keyval(kv, ierr)
    call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, kv, extra, ierr)
    call MPI_Comm_set_attr(dup, kv, 5_MPI_ADDRESS_KIND, ierr)
    call MPI_Comm_dup(dup, dup2, ierr)
    call MPI_Comm_get_attr(dup2, kv, val, flag, ierr)
    call check(.not. flag, 'MPI_COMM_NULL_COPY_FN')
    call MPI_Comm_free(dup2, ierr)
    call MPI_Comm_free_keyval(kv, ierr)
    call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, kv, extra, ierr)
    call MPI_Type_dup(MPI_INTEGER, t2, ierr)
    call MPI_Type_set_attr(t2, kv, 33_MPI_ADDRESS_KIND, ierr)
    call MPI_Type_dup(t2, t3, ierr)
    call MPI_Type_get_attr(t3, kv, val, flag, ierr)
    call check(flag .and. val == 33, 'MPI_TYPE_DUP_FN')
    call MPI_Type_free(t3, ierr)
    call MPI_Type_free(t2, ierr)
    call MPI_Type_free_keyval(kv, ierr)

    ! a window: error handler and a keyval with a user delete procedure
    call MPI_Win_create(wbuf, 16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_SELF, win, ierr)
    call MPI_Win_get_attr(win, MPI_WIN_SIZE, val, flag, ierr)
    call check(flag .and. val == 16, 'MPI_WIN_SIZE is the value')
    call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, val, flag, ierr)
    call check(flag .and. val == 4, 'MPI_WIN_DISP_UNIT is the value')
    call MPI_Win_create_errhandler(win_eh, eh, ierr)
    call MPI_Win_set_errhandler(win, eh, ierr)
    call MPI_Errhandler_free(eh, ierr)
    call MPI_Win_call_errhandler(win, MPI_ERR_WIN, ierr)
    call check(eh_calls == 3 .and. eh_win == win .and. eh_code == MPI_ERR_WIN, 'window handler')
    call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_del, kv, 5_MPI_ADDRESS_KIND, ierr)
    call MPI_Win_set_attr(win, kv, 77_MPI_ADDRESS_KIND, ierr)
    call MPI_Win_free(win, ierr)
    call check(deletes == 3, 'window delete procedure')
    call MPI_Win_free_keyval(kv, ierr)

    ! a file: error handler, and a data representation with an extent procedure
    call MPI_Register_datarep('fortrep', MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, &
                              extent_fn, 11_MPI_ADDRESS_KIND, ierr)
    write(path, '(a,i0,a)') '/tmp/rdmpi_fort_procs_mpi_', rank, '.dat'
    call MPI_File_open(MPI_COMM_SELF, path, ior(MPI_MODE_CREATE, ior(MPI_MODE_RDWR, &
                       MPI_MODE_DELETE_ON_CLOSE)), MPI_INFO_NULL, fh, ierr)
    call MPI_File_create_errhandler(file_eh, eh, ierr)
    call MPI_File_set_errhandler(fh, eh, ierr)
    call MPI_Errhandler_free(eh, ierr)
    call MPI_File_call_errhandler(fh, MPI_ERR_IO, ierr)
    call check(eh_calls == 4 .and. eh_file == fh .and. eh_code == MPI_ERR_IO, 'file handler')
    call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'fortrep', &
                           MPI_INFO_NULL, ierr)
    call check(ierr == MPI_SUCCESS, 'set_view with a registered datarep')
    call MPI_File_get_type_extent(fh, MPI_INTEGER, val, ierr)
    call check(ext_calls == 1 .and. val == 4, 'datarep extent procedure')
    call MPI_File_close(fh, ierr)

    ! a generalized request: cancelled before completion, then completed and waited for
    gstate = 42
    call MPI_Grequest_start(gquery, gfree, gcancel, gstate, req, ierr)
    call MPI_Cancel(req, ierr)
    call check(gc == 1 .and. .not. gc_complete, 'grequest cancel procedure')
    call MPI_Grequest_complete(req, ierr)
    call MPI_Wait(req, st, ierr)
    call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
    call check(gq == 1 .and. g_extra == 42 .and. cnt == 3, 'grequest query procedure')
    call check(st(MPI_SOURCE) == 7 .and. st(MPI_TAG) == 8, 'grequest status')
    call check(gf == 1 .and. req == MPI_REQUEST_NULL, 'grequest free procedure')
    ! the procedures get the caller's EXTRA_STATE variable (as in Open MPI and MPICH)
    call check(gstate == 41, 'grequest extra_state by reference')

    ! REAL(16) and COMPLEX(16): MPI_REAL16 and MPI_COMPLEX32 with their reductions
    q = 1.0_16 / 3.0_16 + rank
    call MPI_Allreduce(MPI_IN_PLACE, q, 1, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD, ierr)
    call check(abs(q - (size / 3.0_16 + size * (size - 1) / 2)) < 1e-30_16, 'MPI_REAL16 sum')
    call MPI_Type_size(MPI_REAL16, cnt, ierr)
    call check(cnt == 16, 'MPI_REAL16 size')
    zq = cmplx(0.0_16, 1.0_16, kind=16)
    call MPI_Allreduce(MPI_IN_PLACE, zq, 1, MPI_COMPLEX32, MPI_PROD, MPI_COMM_WORLD, ierr)
    call check(zq == cmplx(0.0_16, 1.0_16, kind=16)**size, 'MPI_COMPLEX32 product')
    call MPI_Type_create_f90_real(30, MPI_UNDEFINED, t2, ierr)
    call check(t2 == MPI_REAL16, 'create_f90_real(30) is REAL16')

    ! external32: big-endian, whatever the host
    ints = [1, 258]
    call MPI_Pack_external_size('external32', 2, MPI_INTEGER, sz, ierr)
    call check(sz == 8, 'pack_external_size')
    pos = 0
    call MPI_Pack_external('external32', ints, 2, MPI_INTEGER, packed, 8_MPI_ADDRESS_KIND, pos, ierr)
    call check(pos == 8, 'pack_external position')
    call check(all(packed == [0, 0, 0, 1, 0, 0, 1, 2]), 'pack_external bytes')
    pos = 0
    call MPI_Unpack_external('external32', packed, 8_MPI_ADDRESS_KIND, pos, back, 2, MPI_INTEGER, ierr)
    call check(all(back == ints) .and. pos == 8, 'unpack_external')

    ! MPI-1 attributes: INTEGER values, MPI_DUP_FN and MPI_NULL_COPY_FN
    call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, kv, 0, ierr)
    call MPI_Attr_put(dup, kv, 1234, ierr)
    call MPI_Comm_dup(dup, dup2, ierr)
    call MPI_Attr_get(dup2, kv, cnt, flag, ierr)
    call check(flag .and. cnt == 1234, 'MPI_DUP_FN, INTEGER attribute')
    call MPI_Comm_free(dup2, ierr)
    call MPI_Keyval_free(kv, ierr)
    call MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, kv, 0, ierr)
    call MPI_Attr_put(dup, kv, 99, ierr)
    call MPI_Comm_dup(dup, dup2, ierr)
    call MPI_Attr_get(dup2, kv, cnt, flag, ierr)
    call check(.not. flag, 'MPI_NULL_COPY_FN')
    call MPI_Comm_free(dup2, ierr)
    call MPI_Keyval_free(kv, ierr)

    call MPI_Pcontrol(1)
    call MPI_Comm_free(dup, ierr)
    call MPI_Finalize(ierr)
    if (rank == 0) print '(a)', ' No Errors'
contains
    subroutine check(ok, what)
        logical, intent(in) :: ok
        character(len=*), intent(in) :: what
        if (.not. ok) then
            write(0, *) 'FAIL: rank ', rank, ': ', what
            call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
        end if
    end subroutine
end program
