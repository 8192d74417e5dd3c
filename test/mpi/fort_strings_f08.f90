! mpi_f08: status%MPI_ERROR left alone by Mprobe/Mrecv/Improbe/Imrecv + Wait/Recv; info
! strings (blanks dropped by Info_set, a missing key leaves the value, truncation); MPI_SIZEOF
! with and without ierror, scalars and arrays.
program fort_strings_f08
    use mpi_f08
    implicit none
    integer, parameter :: MARK = 12345
    integer :: rank, size, peer, i, sz, ierr
    type(MPI_Status) :: st
    type(MPI_Message) :: msg
    type(MPI_Request) :: req
    type(MPI_Info) :: info
    integer :: ibuf, vlen
    logical :: flag
    character(len=MPI_MAX_INFO_VAL) :: val
    real(kind=8) :: r8m(3, 3)
    integer(kind=2) :: i2
    complex(kind=4) :: c4v(7)

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, size)
    peer = rank
    if (size > 1) peer = 1 - rank

    if (rank < 2) then
        do i = 1, 3
            call MPI_Send(rank, 1, MPI_INTEGER, peer, i, MPI_COMM_WORLD)
        end do
        st%MPI_ERROR = MARK
        call MPI_Recv(ibuf, 1, MPI_INTEGER, peer, 1, MPI_COMM_WORLD, st)
        call check(st%MPI_TAG == 1 .and. ibuf == peer, 'Recv')
        call check(st%MPI_ERROR == MARK, 'MPI_Recv wrote status%MPI_ERROR')
        st%MPI_ERROR = MARK
        call MPI_Mprobe(peer, 2, MPI_COMM_WORLD, msg, st)
        call check(st%MPI_ERROR == MARK, 'MPI_Mprobe wrote status%MPI_ERROR')
        st%MPI_ERROR = MARK
        call MPI_Mrecv(ibuf, 1, MPI_INTEGER, msg, st)
        call check(st%MPI_TAG == 2, 'Mrecv')
        call check(st%MPI_ERROR == MARK, 'MPI_Mrecv wrote status%MPI_ERROR')
        flag = .false.
        do while (.not. flag)
            st%MPI_ERROR = MARK
            call MPI_Improbe(peer, 3, MPI_COMM_WORLD, flag, msg, st)
        end do
        call check(st%MPI_ERROR == MARK, 'MPI_Improbe wrote status%MPI_ERROR')
        call MPI_Imrecv(ibuf, 1, MPI_INTEGER, msg, req)
        st%MPI_ERROR = MARK
        call MPI_Wait(req, st)
        call check(st%MPI_TAG == 3 .and. st%MPI_ERROR == MARK, 'Imrecv + Wait')
    end if

    call MPI_Info_create(info)
    call MPI_Info_set(info, ' key ', '  spaced value ')
    call MPI_Info_get_valuelen(info, 'key', vlen, flag)
    call check(flag .and. vlen == 12, 'valuelen without the blanks')
    call MPI_Info_get(info, 'key', 6, val, flag)
    call check(flag .and. val == 'spaced', 'value truncated to valuelen')
    val = 'kept'
    call MPI_Info_get(info, 'nokey', MPI_MAX_INFO_VAL, val, flag)
    call check(.not. flag .and. val == 'kept', 'a missing key leaves the value')
    call MPI_Info_free(info)

    r8m = 0
    i2 = 0
    c4v = 0
    call MPI_Sizeof(r8m, sz)
    call check(sz == 8, 'MPI_SIZEOF real(8) rank-2 array')
    call MPI_Sizeof(i2, sz, ierr)
    call check(sz == 2 .and. ierr == MPI_SUCCESS, 'MPI_SIZEOF integer(2)')
    call MPI_Sizeof(c4v, sz)
    call check(sz == 8, 'MPI_SIZEOF complex(4) array')
    call MPI_Finalize()
contains
    subroutine check(ok, what)
        logical, intent(in) :: ok
        character(len=*), intent(in) :: what
        if (.not. ok) then
            write(0, *) 'FAIL: rank ', rank, ': ', what
            call MPI_Abort(MPI_COMM_WORLD, 1)
        end if
    end subroutine
end program
