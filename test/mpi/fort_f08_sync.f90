! MPI_F_SYNC_REG (MPI-3.1 17.1.8) around nonblocking operations: a ring exchange whose
! receive buffer is touched only through MPI_F_SYNC_REG between MPI_Irecv and MPI_Wait, with
! mpi_f08 (scalars, arrays of any rank and type, the PMPI_ name) and with `use mpi` (in a
! subroutine of its own: one program unit cannot use both modules).
program fort_f08_sync
    use mpi_f08
    implicit none
    integer :: rank, size, left, right, i
    integer :: r1(8), s1(8)
    double precision :: r2(3, 4), s2(3, 4)
    integer :: scal
    character(len=5) :: str
    type(MPI_Request) :: req(2)

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, size)
    right = mod(rank + 1, size)
    left = mod(rank + size - 1, size)

    r1 = -1
    s1 = [(rank * 100 + i, i = 1, 8)]
    call MPI_Irecv(r1, 8, MPI_INTEGER, left, 1, MPI_COMM_WORLD, req(1))
    call MPI_Isend(s1, 8, MPI_INTEGER, right, 1, MPI_COMM_WORLD, req(2))
    call MPI_F_sync_reg(r1)
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
    call MPI_F_sync_reg(r1)
    do i = 1, 8
        call check(r1(i) == left * 100 + i, 'integer ring with MPI_F_SYNC_REG')
    end do

    r2 = 0
    s2 = reshape([(dble(rank) + i / 16d0, i = 1, 12)], [3, 4])
    call MPI_Irecv(r2, 12, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, req(1))
    call MPI_Isend(s2, 12, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, req(2))
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
    call PMPI_F_sync_reg(r2)
    call check(all(r2 == reshape([(dble(left) + i / 16d0, i = 1, 12)], [3, 4])), &
               'rank-2 ring with PMPI_F_SYNC_REG')

    ! scalars and strings are buffers too
    scal = rank
    str = 'abcde'
    call MPI_F_sync_reg(scal)
    call MPI_F_sync_reg(str)
    call check(scal == rank .and. str == 'abcde', 'MPI_F_SYNC_REG leaves its argument alone')

    call with_mpi_module(rank, left, right)
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

subroutine with_mpi_module(rank, left, right)
    use mpi
    implicit none
    integer, intent(in) :: rank, left, right
    integer :: buf(4), sbuf(4), req(2), ierr, e
    buf = -1
    sbuf = rank + 7
    call MPI_Irecv(buf, 4, MPI_INTEGER, left, 3, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Isend(sbuf, 4, MPI_INTEGER, right, 3, MPI_COMM_WORLD, req(2), ierr)
    call MPI_F_SYNC_REG(buf)
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
    call MPI_F_SYNC_REG(buf)
    call PMPI_F_SYNC_REG(buf(2))
    if (any(buf /= left + 7)) then
        write(0, *) 'FAIL: rank ', rank, ': ring with use mpi and MPI_F_SYNC_REG'
        call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
end subroutine
