! mpi_f08's specific procedure names (MPI-3.1 17.1.5): MPI_Send resolves to MPI_Send_f08ts and
! MPI_Comm_rank to MPI_Comm_rank_f08, external procedures a tool can define itself and forward
! through the PMPI_ generics (as MPICH's profile1f90 does). The program's own specifics below
! count the calls; the data must still arrive.
program fort_profile_f08
    use mpi_f08
    implicit none
    integer :: rank, size, buf(4), fails = 0
    integer :: sends, recvs, ranks, amount
    common /counts/ sends, recvs, ranks, amount
    type(MPI_Status) :: st

    sends = 0
    recvs = 0
    ranks = 0
    amount = 0
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, size)
    if (ranks /= 1) call fail('MPI_Comm_rank_f08 was not called')
    buf = rank
    if (rank == 0 .and. size > 1) then
        call MPI_Send(buf(1:4:2), 2, MPI_INTEGER, 1, 3, MPI_COMM_WORLD)
        if (sends /= 1 .or. amount /= 2) call fail('MPI_Send_f08ts was not called')
    else if (rank == 1) then
        buf = -1
        call MPI_Recv(buf, 4, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, st)
        if (recvs /= 1) call fail('MPI_Recv_f08ts was not called')
        if (any(buf /= [0, 0, -1, -1])) call fail('data through the tool')
    end if
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

subroutine MPI_Send_f08ts(buf, count, datatype, dest, tag, comm, ierror)
    use :: mpi_f08, unused => MPI_Send_f08ts
    implicit none
    type(*), dimension(..), intent(in) :: buf
    integer, intent(in) :: count, dest, tag
    type(MPI_Datatype), intent(in) :: datatype
    type(MPI_Comm), intent(in) :: comm
    integer, optional, intent(out) :: ierror
    integer :: sends, recvs, ranks, amount
    common /counts/ sends, recvs, ranks, amount
    sends = sends + 1
    amount = amount + count
    call PMPI_Send(buf, count, datatype, dest, tag, comm, ierror)
end subroutine

subroutine MPI_Recv_f08ts(buf, count, datatype, source, tag, comm, status, ierror)
    use :: mpi_f08, unused => MPI_Recv_f08ts
    implicit none
    type(*), dimension(..) :: buf
    integer, intent(in) :: count, source, tag
    type(MPI_Datatype), intent(in) :: datatype
    type(MPI_Comm), intent(in) :: comm
    type(MPI_Status) :: status
    integer, optional, intent(out) :: ierror
    integer :: sends, recvs, ranks, amount
    common /counts/ sends, recvs, ranks, amount
    recvs = recvs + 1
    call PMPI_Recv(buf, count, datatype, source, tag, comm, status, ierror)
end subroutine

subroutine MPI_Comm_rank_f08(comm, rank, ierror)
    use :: mpi_f08, unused => MPI_Comm_rank_f08
    implicit none
    type(MPI_Comm), intent(in) :: comm
    integer, intent(out) :: rank
    integer, optional, intent(out) :: ierror
    integer :: sends, recvs, ranks, amount
    common /counts/ sends, recvs, ranks, amount
    ranks = ranks + 1
    call PMPI_Comm_rank(comm, rank, ierror)
end subroutine
