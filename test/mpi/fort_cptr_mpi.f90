! TYPE(C_PTR) base pointers (MPI-3.1 17.1.5): `use mpi`'s generic MPI_ALLOC_MEM,
! MPI_WIN_ALLOCATE, MPI_WIN_ALLOCATE_SHARED and MPI_WIN_SHARED_QUERY take a TYPE(C_PTR) (the
! X_CPTR specifics) as well as an INTEGER(KIND=MPI_ADDRESS_KIND); mpi_f08's take TYPE(C_PTR)
! (in a subroutine of its own). The memory is used through C_F_POINTER: one-sided puts into an
! allocated window, neighbours' shared segments read directly.
program fort_cptr_mpi
    use mpi
    use, intrinsic :: iso_c_binding
    implicit none
    integer :: rank, size, ierr, win, i, right, left, shcomm, shrank, shsize, du
    integer(kind=MPI_ADDRESS_KIND) :: bytes, addr, qsize
    integer(kind=MPI_ADDRESS_KIND), parameter :: zero = 0
    type(c_ptr) :: p, q
    integer, pointer :: a(:), b(:)
    double precision, pointer :: d(:)

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
    right = mod(rank + 1, size)
    left = mod(rank + size - 1, size)

    ! MPI_ALLOC_MEM both ways
    bytes = 10 * 8
    call MPI_Alloc_mem(bytes, MPI_INFO_NULL, p, ierr)
    call check(ierr == MPI_SUCCESS .and. c_associated(p), 'MPI_ALLOC_MEM with TYPE(C_PTR)')
    call c_f_pointer(p, d, [10])
    d = [(dble(i) * rank, i = 1, 10)]
    call check(d(10) == 10d0 * rank, 'the allocated memory holds values')
    call MPI_Free_mem(d, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_FREE_MEM of it')
    call MPI_Alloc_mem(bytes, MPI_INFO_NULL, addr, ierr)
    call check(ierr == MPI_SUCCESS .and. addr /= 0, 'MPI_ALLOC_MEM with an address-sized INTEGER')
    call c_f_pointer(transfer(addr, p), a, [20])
    a = 3
    call MPI_Free_mem(a, ierr)

    ! MPI_WIN_ALLOCATE: a ring of puts into the C_PTR memory
    bytes = 4 * 4
    call MPI_Win_allocate(bytes, 4, MPI_INFO_NULL, MPI_COMM_WORLD, p, win, ierr)
    call check(ierr == MPI_SUCCESS .and. c_associated(p), 'MPI_WIN_ALLOCATE with TYPE(C_PTR)')
    call c_f_pointer(p, a, [4])
    a = -1
    call MPI_Win_fence(0, win, ierr)
    call MPI_Put([rank, rank, rank, rank], 4, MPI_INTEGER, right, zero, 4, MPI_INTEGER, win, ierr)
    call MPI_Win_fence(0, win, ierr)
    call check(all(a == left), 'puts land in the TYPE(C_PTR) window memory')
    call MPI_Win_free(win, ierr)

    ! MPI_WIN_ALLOCATE_SHARED and MPI_WIN_SHARED_QUERY on the node's ranks
    call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, shcomm, ierr)
    call MPI_Comm_rank(shcomm, shrank, ierr)
    call MPI_Comm_size(shcomm, shsize, ierr)
    bytes = 2 * 4
    call MPI_Win_allocate_shared(bytes, 4, MPI_INFO_NULL, shcomm, p, win, ierr)
    call check(ierr == MPI_SUCCESS .and. c_associated(p), 'MPI_WIN_ALLOCATE_SHARED with TYPE(C_PTR)')
    call c_f_pointer(p, a, [2])
    call MPI_Win_fence(0, win, ierr)
    a = [shrank, 100 + shrank]
    call MPI_Win_fence(0, win, ierr)
    call MPI_Win_shared_query(win, mod(shrank + 1, shsize), qsize, du, q, ierr)
    call check(ierr == MPI_SUCCESS .and. qsize == 8 .and. du == 4, 'MPI_WIN_SHARED_QUERY with TYPE(C_PTR)')
    call c_f_pointer(q, b, [2])
    call check(b(1) == mod(shrank + 1, shsize) .and. b(2) == 100 + mod(shrank + 1, shsize), &
               'a neighbour''s shared segment read through its TYPE(C_PTR)')
    call MPI_Win_shared_query(win, shrank, qsize, du, addr, ierr)
    call check(ierr == MPI_SUCCESS .and. addr == transfer(p, addr), 'MPI_WIN_SHARED_QUERY with an INTEGER')
    call MPI_Win_fence(0, win, ierr)
    call MPI_Win_free(win, ierr)
    call MPI_Comm_free(shcomm, ierr)

    call with_f08(rank, size)
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

subroutine with_f08(rank, size)
    use mpi_f08
    use, intrinsic :: iso_c_binding
    implicit none
    integer, intent(in) :: rank, size
    type(c_ptr) :: p, q
    type(MPI_Win) :: win
    integer, pointer :: a(:), b(:)
    integer(kind=MPI_ADDRESS_KIND) :: qsize
    integer :: du, ierr
    logical :: ok
    call MPI_Alloc_mem(16_MPI_ADDRESS_KIND, MPI_INFO_NULL, p)
    call c_f_pointer(p, a, [4])
    a = rank
    ok = all(a == rank)
    call MPI_Free_mem(a)
    call MPI_Win_allocate_shared(8_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_SELF, p, win)
    call c_f_pointer(p, a, [2])
    a = [7, size]
    call MPI_Win_shared_query(win, 0, qsize, du, q, ierr)
    call c_f_pointer(q, b, [2])
    ok = ok .and. ierr == MPI_SUCCESS .and. qsize == 8 .and. b(1) == 7 .and. b(2) == size
    call MPI_Win_free(win)
    call MPI_Win_allocate(8_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_SELF, p, win)
    ok = ok .and. c_associated(p)
    call MPI_Win_free(win)
    if (.not. ok) then
        write(0, *) 'FAIL: rank ', rank, ': mpi_f08 TYPE(C_PTR) base pointers'
        call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
end subroutine
