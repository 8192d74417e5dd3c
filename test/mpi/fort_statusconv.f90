! MPI_STATUS_F082F and MPI_STATUS_F2F08 from `use mpi` and mpif.h (MPI-3.1 17.2.5: both have
! TYPE(MPI_Status) for them): a status an mpi_f08 receive filled goes to a `use mpi` routine,
! becomes the INTEGER array there (source, tag and count intact), comes back through an
! mpif.h routine as TYPE(MPI_Status), and MPI_Get_count reads the same count from it.
module statusconv_f08
    use mpi_f08
    implicit none
contains
    subroutine recv_one(st, expect_src)
        type(MPI_Status), intent(out) :: st
        integer, intent(out) :: expect_src
        integer :: rank, size, buf(5), got(5)
        call MPI_Comm_rank(MPI_COMM_WORLD, rank)
        call MPI_Comm_size(MPI_COMM_WORLD, size)
        buf = rank
        expect_src = mod(rank + size - 1, size)
        call MPI_Sendrecv(buf, 3 + mod(rank, 2), MPI_INTEGER, mod(rank + 1, size), 7, &
                          got, 5, MPI_INTEGER, expect_src, 7, MPI_COMM_WORLD, st)
    end subroutine
    integer function count_f08(st)
        type(MPI_Status), intent(in) :: st
        call MPI_Get_count(st, MPI_INTEGER, count_f08)
    end function
end module

subroutine to_array(st, fst, cnt)
    use mpi
    implicit none
    type(MPI_Status), intent(in) :: st
    integer, intent(out) :: fst(MPI_STATUS_SIZE), cnt
    integer :: ierr
    call MPI_STATUS_F082F(st, fst, ierr)
    if (ierr /= MPI_SUCCESS) stop 'MPI_STATUS_F082F ierr'
    call MPI_GET_COUNT(fst, MPI_INTEGER, cnt, ierr)
end subroutine

subroutine from_array(fst, st)
    implicit none
    include 'mpif.h'
    integer fst(MPI_STATUS_SIZE), ierr
    type(MPI_Status) st
    call MPI_STATUS_F2F08(fst, st, ierr)
    if (ierr /= MPI_SUCCESS) stop 'MPI_STATUS_F2F08 ierr'
end subroutine

program fort_statusconv
    use statusconv_f08
    implicit none
    interface
        subroutine to_array(st, fst, cnt)
            import :: MPI_Status, MPI_STATUS_SIZE
            type(MPI_Status), intent(in) :: st
            integer, intent(out) :: fst(MPI_STATUS_SIZE), cnt
        end subroutine
    end interface
    type(MPI_Status) :: st, back
    integer :: fst(MPI_STATUS_SIZE), cnt, src, rank, size, fails = 0

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, size)
    call recv_one(st, src)
    call to_array(st, fst, cnt)
    if (fst(MPI_SOURCE) /= src .or. fst(MPI_TAG) /= 7) call fail('F082F source/tag')
    if (cnt /= 3 + mod(src, 2)) call fail('count through the INTEGER status')
    fst(MPI_TAG) = 9   ! the way back carries what the array says
    call from_array(fst, back)
    if (back%MPI_SOURCE /= src .or. back%MPI_TAG /= 9) call fail('F2F08 source/tag')
    if (count_f08(back) /= 3 + mod(src, 2)) call fail('count through the way back')
    call MPI_Allreduce(MPI_IN_PLACE, fails, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0 .and. fails == 0) print '(a)', 'No Errors'
    call MPI_Finalize()
    if (fails /= 0) stop 1
contains
    subroutine fail(what)
        character(len=*), intent(in) :: what
        print '(a,i0,2a)', 'rank ', rank, ': failed: ', what
        fails = fails + 1
    end subroutine
end program
