! `use mpi`: what Fortran programs see of statuses, info strings and MPI_SIZEOF.
!  - status(MPI_ERROR) is left alone by the single-completion calls (Recv, Mprobe, Mrecv,
!    Improbe, Imrecv + Wait, Probe, Sendrecv) and set by a Waitall that fails;
!  - MPI_Info_set drops leading and trailing blanks of keys and values; MPI_Info_get truncates
!    to valuelen and to the Fortran length, pads with blanks and leaves the value alone when
!    the key is not there; MPI_Info_get_valuelen, MPI_Info_get_nthkey; MPI_Info_get_string's
!    buflen counts no NUL (0: nothing written, out: the value's length);
!  - MPI_SIZEOF of every intrinsic type and kind, scalar and arrays of several ranks;
!  - MPI_Type_create_f90_*: one handle per (p, r), described by MPI_COMBINER_F90_*, usable in
!    a reduction, not freeable.
program fort_strings_mpi
    use mpi
    implicit none
    integer, parameter :: MARK = 12345
    integer :: rank, size, peer, ierr, i, n, cls
    integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2), msg, req, reqs(2)
    integer :: ibuf(2), out(2)
    logical :: flag

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
    peer = rank
    if (size > 1) peer = 1 - rank

    if (rank < 2) then
        ! ---- status(MPI_ERROR) ----
        out = [rank, rank + 1]
        do i = 1, 6
            call MPI_Send(out, 1, MPI_INTEGER, peer, i, MPI_COMM_WORLD, ierr)
        end do
        st(MPI_ERROR) = MARK
        call MPI_Recv(ibuf, 1, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, st, ierr)
        call check(st(MPI_TAG) == 1 .and. st(MPI_SOURCE) == peer, 'Recv status')
        call check(st(MPI_ERROR) == MARK, 'MPI_Recv wrote status(MPI_ERROR)')
        st(MPI_ERROR) = MARK
        call MPI_Probe(peer, 2, MPI_COMM_WORLD, st, ierr)
        call check(st(MPI_ERROR) == MARK, 'MPI_Probe wrote status(MPI_ERROR)')
        st(MPI_ERROR) = MARK
        call MPI_Mprobe(peer, 2, MPI_COMM_WORLD, msg, st, ierr)
        call check(st(MPI_ERROR) == MARK, 'MPI_Mprobe wrote status(MPI_ERROR)')
        st(MPI_ERROR) = MARK
        call MPI_Mrecv(ibuf, 1, MPI_INTEGER, msg, st, ierr)
        call check(st(MPI_TAG) == 2 .and. ibuf(1) == peer, 'Mrecv')
        call check(st(MPI_ERROR) == MARK, 'MPI_Mrecv wrote status(MPI_ERROR)')
        flag = .false.
        do while (.not. flag)
            st(MPI_ERROR) = MARK
            call MPI_Improbe(peer, 3, MPI_COMM_WORLD, flag, msg, st, ierr)
        end do
        call check(st(MPI_ERROR) == MARK, 'MPI_Improbe wrote status(MPI_ERROR)')
        call MPI_Imrecv(ibuf, 1, MPI_INTEGER, msg, req, ierr)
        st(MPI_ERROR) = MARK
        call MPI_Wait(req, st, ierr)
        call check(st(MPI_TAG) == 3, 'Imrecv')
        call check(st(MPI_ERROR) == MARK, 'MPI_Wait after MPI_Imrecv wrote status(MPI_ERROR)')
        st(MPI_ERROR) = MARK
        call MPI_Sendrecv(out, 1, MPI_INTEGER, peer, 7, ibuf, 1, MPI_INTEGER, peer, 7, &
                          MPI_COMM_WORLD, st, ierr)
        call check(st(MPI_ERROR) == MARK, 'MPI_Sendrecv wrote status(MPI_ERROR)')
        do i = 4, 6
            call MPI_Recv(ibuf, 1, MPI_INTEGER, peer, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        end do
        ! a Waitall with a truncated receive: MPI_ERR_IN_STATUS, every MPI_ERROR set
        call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
        call MPI_Send(out, 1, MPI_INTEGER, peer, 8, MPI_COMM_WORLD, ierr)
        call MPI_Send(out, 2, MPI_INTEGER, peer, 9, MPI_COMM_WORLD, ierr)
        call MPI_Irecv(ibuf(1), 1, MPI_INTEGER, peer, 8, MPI_COMM_WORLD, reqs(1), ierr)
        call MPI_Irecv(ibuf(2), 1, MPI_INTEGER, peer, 9, MPI_COMM_WORLD, reqs(2), ierr)
        sts(MPI_ERROR, :) = MARK
        call MPI_Waitall(2, reqs, sts, ierr)
        call MPI_Error_class(ierr, cls, i)
        call check(cls == MPI_ERR_IN_STATUS, 'Waitall with a truncation: MPI_ERR_IN_STATUS')
        call check(sts(MPI_ERROR, 1) == MPI_SUCCESS, 'the good status of a failed Waitall')
        call MPI_Error_class(sts(MPI_ERROR, 2), cls, i)
        call check(cls == MPI_ERR_TRUNCATE, 'the truncated status of a failed Waitall')
        call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
    end if

    call infos()
    call sizes()
    call f90types()
    call MPI_Finalize(ierr)
contains
    subroutine infos()
        integer :: info, vlen, nkeys, k, found
        character(len=MPI_MAX_INFO_KEY) :: key
        character(len=MPI_MAX_INFO_VAL) :: val
        character(len=4) :: short
        logical :: fl

        call MPI_Info_create(info, ierr)
        call MPI_Info_set(info, '  padded key  ', '  a value  ', ierr)
        call MPI_Info_set(info, 'other', 'abcdefghij', ierr)
        call MPI_Info_get_nkeys(info, nkeys, ierr)
        call check(nkeys == 2, 'two keys')
        found = 0
        do k = 0, nkeys - 1
            call MPI_Info_get_nthkey(info, k, key, ierr)
            if (key == 'padded key') found = found + 1
            if (key == 'other') found = found + 10
        end do
        call check(found == 11, 'nthkey gives the keys without their blanks')
        call MPI_Info_get_valuelen(info, 'padded key', vlen, fl, ierr)
        call check(fl .and. vlen == 7, 'valuelen of a value set with blanks around it')
        call MPI_Info_get_valuelen(info, '  padded key', vlen, fl, ierr)
        call check(fl .and. vlen == 7, 'a key with leading blanks finds the same value')
        call MPI_Info_get(info, 'padded key', MPI_MAX_INFO_VAL, val, fl, ierr)
        call check(fl .and. val == 'a value', 'value without its blanks')
        ! truncation: to valuelen, and to the Fortran length, blank-padded
        call MPI_Info_get(info, 'other', 3, val, fl, ierr)
        call check(fl .and. val == 'abc', 'value truncated to valuelen, blank-padded')
        call MPI_Info_get(info, 'other', MPI_MAX_INFO_VAL, short, fl, ierr)
        call check(fl .and. short == 'abcd', 'value truncated to the Fortran length')
        ! no such key: flag false, the value left as it was
        val = 'untouched'
        call MPI_Info_get(info, 'missing', MPI_MAX_INFO_VAL, val, fl, ierr)
        call check(.not. fl .and. val == 'untouched', 'a missing key leaves the value')
        call MPI_Info_get_valuelen(info, 'missing', vlen, fl, ierr)
        call check(.not. fl, 'no valuelen for a missing key')
        ! MPI_Info_get_string: buflen without the NUL
        n = 0
        val = 'untouched'
        call MPI_Info_get_string(info, 'other', n, val, fl, ierr)
        call check(fl .and. n == 10 .and. val == 'untouched', 'get_string with buflen 0')
        n = 2
        call MPI_Info_get_string(info, 'other', n, val, fl, ierr)
        call check(fl .and. n == 10 .and. val == 'ab', 'get_string with buflen 2')
        n = MPI_MAX_INFO_VAL
        call MPI_Info_get_string(info, 'other', n, val, fl, ierr)
        call check(fl .and. n == 10 .and. val == 'abcdefghij', 'get_string whole')
        val = 'untouched'
        n = 5
        call MPI_Info_get_string(info, 'missing', n, val, fl, ierr)
        call check(.not. fl .and. val == 'untouched', 'get_string of a missing key')
        call MPI_Info_free(info, ierr)
    end subroutine

    subroutine sizes()
        integer(kind=1) :: i1, i1v(3)
        integer(kind=2) :: i2
        integer(kind=4) :: i4, i4m(2, 3)
        integer(kind=8) :: i8, i8v(5)
        real(kind=4) :: r4, r4c(2, 2, 2)
        real(kind=8) :: r8
        complex(kind=4) :: c4
        complex(kind=8) :: c8, c8v(4)
        double precision :: dp
        logical :: l
        integer :: sz
        i1 = 0; i2 = 0; i4 = 0; i8 = 0; r4 = 0; r8 = 0; c4 = 0; c8 = 0; dp = 0; l = .true.
        i1v = 0; i4m = 0; i8v = 0; r4c = 0; c8v = 0
        call MPI_Sizeof(i1, sz, ierr)
        call check(sz == 1 .and. ierr == MPI_SUCCESS, 'MPI_SIZEOF integer(1)')
        call MPI_Sizeof(i1v, sz, ierr)
        call check(sz == 1, 'MPI_SIZEOF integer(1) array')
        call MPI_Sizeof(i2, sz, ierr)
        call check(sz == 2, 'MPI_SIZEOF integer(2)')
        call MPI_Sizeof(i4, sz, ierr)
        call check(sz == 4, 'MPI_SIZEOF integer(4)')
        call MPI_Sizeof(i4m, sz, ierr)
        call check(sz == 4, 'MPI_SIZEOF integer(4) rank-2 array')
        call MPI_Sizeof(i8, sz, ierr)
        call check(sz == 8, 'MPI_SIZEOF integer(8)')
        call MPI_Sizeof(i8v, sz, ierr)
        call check(sz == 8, 'MPI_SIZEOF integer(8) array')
        call MPI_Sizeof(r4, sz, ierr)
        call check(sz == 4, 'MPI_SIZEOF real(4)')
        call MPI_Sizeof(r4c, sz, ierr)
        call check(sz == 4, 'MPI_SIZEOF real(4) rank-3 array')
        call MPI_Sizeof(r8, sz, ierr)
        call check(sz == 8, 'MPI_SIZEOF real(8)')
        call MPI_Sizeof(dp, sz, ierr)
        call check(sz == 8, 'MPI_SIZEOF double precision')
        call MPI_Sizeof(c4, sz, ierr)
        call check(sz == 8, 'MPI_SIZEOF complex(4)')
        call MPI_Sizeof(c8, sz, ierr)
        call check(sz == 16, 'MPI_SIZEOF complex(8)')
        call MPI_Sizeof(c8v, sz, ierr)
        call check(sz == 16, 'MPI_SIZEOF complex(8) array')
        call MPI_Sizeof(l, sz, ierr)
        call check(sz == storage_size(l) / 8, 'MPI_SIZEOF logical')
    end subroutine

    subroutine f90types()
        integer :: t1, t2, t3, ni, na, nd, comb, ints(2), dts(1), e
        integer(kind=MPI_ADDRESS_KIND) :: adds(1)
        integer(kind=8) :: v
        call MPI_Type_create_f90_integer(9, t1, ierr)
        call MPI_Type_create_f90_integer(8, t2, ierr)
        call check(t1 /= t2, 'f90_integer(9) and (8) are distinct handles')
        call MPI_Type_create_f90_integer(9, t3, ierr)
        call check(t1 == t3, 'f90_integer(9) twice is the same handle')
        call MPI_Type_get_envelope(t1, ni, na, nd, comb, ierr)
        call check(comb == MPI_COMBINER_F90_INTEGER .and. ni == 1 .and. na == 0 .and. nd == 0, &
                   'envelope of f90_integer(9)')
        call MPI_Type_get_contents(t1, 1, 0, 0, ints, adds, dts, ierr)
        call check(ints(1) == 9, 'contents of f90_integer(9)')
        call MPI_Type_create_f90_real(12, MPI_UNDEFINED, t2, ierr)
        call MPI_Type_get_envelope(t2, ni, na, nd, comb, ierr)
        call check(comb == MPI_COMBINER_F90_REAL .and. ni == 2, 'envelope of f90_real(12)')
        call MPI_Type_get_contents(t2, 2, 0, 0, ints, adds, dts, ierr)
        call check(ints(1) == 12 .and. ints(2) == MPI_UNDEFINED, 'contents of f90_real(12)')
        call MPI_Type_create_f90_complex(6, 30, t2, ierr)
        call MPI_Type_get_envelope(t2, ni, na, nd, comb, ierr)
        call check(comb == MPI_COMBINER_F90_COMPLEX .and. ni == 2, 'envelope of f90_complex')
        call MPI_Type_create_f90_integer(15, t2, ierr)
        v = rank + 1
        call MPI_Allreduce(MPI_IN_PLACE, v, 1, t2, MPI_SUM, MPI_COMM_WORLD, ierr)
        call check(ierr == MPI_SUCCESS .and. v == size * (size + 1) / 2, 'sum on f90_integer(15)')
        call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
        call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
        t3 = t1
        call MPI_Type_free(t3, ierr)
        call check(ierr /= MPI_SUCCESS, 'an f90 type cannot be freed')
        call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
        e = 0
    end subroutine

    subroutine check(ok, what)
        logical, intent(in) :: ok
        character(len=*), intent(in) :: what
        integer :: e
        if (.not. ok) then
            write(0, *) 'FAIL: rank ', rank, ': ', what
            call MPI_Abort(MPI_COMM_WORLD, 1, e)
        end if
    end subroutine
end program
