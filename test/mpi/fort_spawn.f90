! `use mpi`: MPI_Comm_spawn with a blank-terminated argv array and an errcodes array, then
! MPI_Comm_spawn_multiple of two commands with MPI_ARGVS_NULL and MPI_ERRCODES_IGNORE. The
! children (this program again) check their command line and report to the parents over the
! intercommunicator. Prints SKIP when rdmpirun refuses to spawn (a job it runs through its
! daemons), as test/mpi/spawn.c does.
program fort_spawn
    use mpi
    implicit none
    integer :: rank, size, ierr, parent, inter, i, cls, n, nargs, appnum
    integer :: errs(2), got(2), maxprocs(2), infos(2)
    character(len=16) :: args(3)
    character(len=512) :: cmd, cmds(2), a1, a2
    character(len=64) :: job
    integer :: jlen, jst
    integer(kind=MPI_ADDRESS_KIND) :: attr
    logical :: flag

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
    call MPI_Comm_get_parent(parent, ierr)

    if (parent /= MPI_COMM_NULL) then
        ! a child: two arguments from MPI_Comm_spawn, none from spawn_multiple
        nargs = command_argument_count()
        if (nargs == 2) then
            call get_command_argument(1, a1)
            call get_command_argument(2, a2)
            call check(a1 == 'one', 'first argument of a spawned child, its blanks stripped')
            call check(a2 == 'two words', 'second argument (with a blank inside)')
        else
            call check(nargs == 0, 'MPI_ARGVS_NULL gives no arguments')
        end if
        call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, attr, flag, ierr)
        appnum = -1
        if (flag) appnum = int(attr)
        got = [nargs, appnum]
        call MPI_Send(got, 2, MPI_INTEGER, 0, rank, parent, ierr)
        call MPI_Comm_disconnect(parent, ierr)
        call MPI_Finalize(ierr)
        stop
    end if

    call get_command_argument(0, cmd)
    args(1) = '  one'   ! leading and trailing blanks go (MPI-3.1 10.3.2)
    args(2) = 'two words'
    args(3) = ' '
    errs = -1
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    call MPI_Comm_spawn(cmd, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, errs, ierr)
    if (ierr /= MPI_SUCCESS) then
        call MPI_Error_class(ierr, cls, i)
        call get_environment_variable('RDMPID_JOB', job, jlen, jst)
        if (cls == MPI_ERR_SPAWN .and. jst == 0) then
            if (rank == 0) print '(A)', 'SKIP: rdmpirun does not spawn in a job it runs ' // &
                                       'through its daemons (across nodes) yet'
            call MPI_Finalize(ierr)
            stop
        end if
        call check(.false., 'MPI_Comm_spawn failed')
    end if
    if (rank == 0) call check(all(errs == MPI_SUCCESS), 'spawn errcodes')
    call MPI_Comm_remote_size(inter, n, ierr)
    call check(n == 2, 'remote size after spawning 2')
    if (rank == 0) then
        do i = 0, 1
            call MPI_Recv(got, 2, MPI_INTEGER, i, i, inter, MPI_STATUS_IGNORE, ierr)
            call check(got(1) == 2 .and. got(2) == 0, 'a spawned child saw its arguments')
        end do
    end if
    call MPI_Comm_disconnect(inter, ierr)

    ! spawn_multiple: two commands (the same program), one process each
    cmds(1) = cmd
    cmds(2) = cmd
    maxprocs = [1, 1]
    infos = [MPI_INFO_NULL, MPI_INFO_NULL]
    call MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, maxprocs, infos, 0, MPI_COMM_WORLD, &
                                 inter, MPI_ERRCODES_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Comm_spawn_multiple')
    call MPI_Comm_remote_size(inter, n, ierr)
    call check(n == 2, 'remote size after spawn_multiple')
    if (rank == 0) then
        do i = 0, 1
            call MPI_Recv(got, 2, MPI_INTEGER, i, i, inter, MPI_STATUS_IGNORE, ierr)
            call check(got(1) == 0 .and. got(2) == i, 'a child of spawn_multiple: no arguments, appnum')
        end do
    end if
    call MPI_Comm_disconnect(inter, ierr)
    call MPI_Finalize(ierr)
contains
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
