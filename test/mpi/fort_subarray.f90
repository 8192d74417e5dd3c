! mpi_f08 choice buffers given strided array sections (1-D a(1:n:2), reversed, 2-D sections):
! every call below runs once on sections and once on contiguous copies of the same data, and
! the sections must end up holding what the contiguous buffers hold, with the elements between
! them untouched. Covers the copy path (buffers sharing a count and datatype: the reductions;
! buffers whose counts are arrays: the v and w collectives; MPI_Pack's output; a datatype that
! is not a run of whole elements), nonblocking and persistent forms (copied back when the
! request completes), and the datatype path (own count and datatype, a count covering part).
program fort_subarray
    use mpi_f08
    implicit none
    integer, parameter :: K = 3, GAP = -7
    integer :: rank, np, i, j, fails = 0, tot, pos, psize
    integer, allocatable :: sx(:), rx(:), cs(:), cr(:), cnt(:), dsp(:), rcnt(:), rdsp(:)
    integer, allocatable :: a2(:, :), b2(:, :), c2(:, :)
    integer, allocatable :: wcnt(:), wdsp(:), wrcnt(:), wrdsp(:)
    type(MPI_Datatype), allocatable :: wt(:)
    type(MPI_Request) :: req, reqs(2)
    type(MPI_Datatype) :: vec
    type(MPI_Status) :: st

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, np)
    tot = np * (np + 1) / 2
    allocate(sx(2 * K * np * np + 8), rx(2 * K * np * np + 8))
    allocate(cnt(np), dsp(np), rcnt(np), rdsp(np))

    ! ---- reductions: send and receive buffers share one count and datatype --------------
    call fill(sx)
    call both_reduce('Reduce', 1)
    call both_reduce('Allreduce', 2)
    call both_reduce('Scan', 3)
    call both_reduce('Exscan', 4)
    call both_reduce('Ireduce', 5)
    call both_reduce('Iallreduce', 6)
    call both_reduce('Iscan', 7)
    call both_reduce('Iexscan', 8)
    call both_reduce('Reduce_local', 9)
    call both_reduce('Reduce_scatter_block', 10)
    call both_reduce('Ireduce_scatter_block', 11)
    call both_reduce('Reduce_scatter', 12)
    call both_reduce('Ireduce_scatter', 13)
    ! in place at the root, on a strided receive buffer
    rx = GAP
    rx(1:2 * K:2) = [(rank + i, i = 1, K)]
    if (rank == 0) then
        call MPI_Reduce(MPI_IN_PLACE, rx(1:2 * K:2), K, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
        call expect(all(rx(1:2 * K:2) == [(tot - np + np * i, i = 1, K)]) .and. &
                    all(rx(2:2 * K:2) == GAP), 'Reduce in place, strided')
    else
        call MPI_Reduce(rx(1:2 * K:2), rx, K, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
    end if
    ! a 2-D section (every other row of two columns)
    allocate(a2(6, 4), b2(6, 4), c2(3, 2))
    a2 = reshape([(rank * 100 + i, i = 1, 24)], [6, 4])
    b2 = GAP
    call MPI_Allreduce(a2(1:6:2, 2:3), b2(2:6:2, 1:4:3), 6, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
    call MPI_Allreduce(a2(1:6:2, 2:3) + 0, c2, 6, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
    call expect(all(b2(2:6:2, 1:4:3) == c2) .and. all(b2(1:5:2, :) == GAP) .and. &
                all(b2(:, 2:3) == GAP), 'Allreduce on 2-D sections')

    ! ---- v and w collectives: counts and displacements index the sections' elements -----
    do i = 1, np
        cnt(i) = i
        dsp(i) = (i - 1) * i / 2 + (i - 1)   ! a hole of one element between blocks
    end do
    call both_v('Gatherv', 1)
    call both_v('Igatherv', 2)
    call both_v('Scatterv', 3)
    call both_v('Iscatterv', 4)
    call both_v('Allgatherv', 5)
    call both_v('Iallgatherv', 6)
    call both_v('Alltoallv', 7)
    call both_v('Ialltoallv', 8)
    call both_v('Alltoallw', 9)
    call both_v('Ialltoallw', 10)
    call both_v('Gather', 11)
    call both_v('Scatter', 12)
    call both_v('Allgather', 13)
    call both_v('Alltoall', 14)
    call both_v('Ialltoall', 15)

    ! ---- a datatype that is not a run of whole elements: copied --------------------------
    call MPI_Type_vector(2, 1, 2, MPI_INTEGER, vec)
    call MPI_Type_commit(vec)
    call fill(sx)
    rx = GAP
    call MPI_Sendrecv(sx(1:8:2), 1, vec, rank, 3, rx(2:8:2), 1, vec, rank, 3, MPI_COMM_WORLD, st)
    ! virtual elements 1 and 3 of each section: sx(1), sx(5) into rx(2), rx(6)
    call expect(rx(2) == sx(1) .and. rx(6) == sx(5) .and. count(rx /= GAP) == 2, &
                'Sendrecv, vector type over sections')
    rx = GAP
    call MPI_Irecv(rx(8:2:-2), 1, vec, rank, 4, MPI_COMM_WORLD, reqs(1))
    call MPI_Isend(sx(1:8:2), 1, vec, rank, 4, MPI_COMM_WORLD, reqs(2))
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
    call expect(rx(8) == sx(1) .and. rx(4) == sx(5) .and. count(rx /= GAP) == 2, &
                'Irecv/Isend, vector type over sections')
    ! persistent: gathered at each start, scattered at each completion
    call MPI_Recv_init(rx(1:8:2), 1, vec, rank, 5, MPI_COMM_WORLD, req)
    do j = 1, 2
        rx = GAP
        sx(1:8) = [(j * 10 + i, i = 1, 8)]
        call MPI_Start(req)
        call MPI_Send(sx(1:4), 2, MPI_INTEGER, rank, 5, MPI_COMM_WORLD)
        call MPI_Wait(req, st)
        call expect(rx(1) == j * 10 + 1 .and. rx(5) == j * 10 + 2 .and. count(rx /= GAP) == 2, &
                    'persistent receive with a vector type over a section')
    end do
    call MPI_Request_free(req)
    call MPI_Type_free(vec)

    ! ---- MPI_Pack into a strided INTEGER section, MPI_Unpack out of it ---------------------
    call MPI_Pack_size(4, MPI_INTEGER, MPI_COMM_WORLD, psize)
    psize = (psize + 3) / 4   ! INTEGERs that hold it
    call fill(sx)
    rx = GAP
    pos = 0
    call MPI_Pack(sx(1:8:2), 4, MPI_INTEGER, rx(1:2 * psize:2), psize * 4, pos, MPI_COMM_WORLD)
    call expect(all(rx(2:2 * psize:2) == GAP), 'Pack leaves the gaps')
    allocate(cs(4))
    cs = 0
    pos = 0
    call MPI_Unpack(rx(1:2 * psize:2), psize * 4, pos, cs, 4, MPI_INTEGER, MPI_COMM_WORLD)
    call expect(all(cs == sx(1:8:2)), 'Unpack of a strided packed buffer')
    deallocate(cs)

    ! ---- one-sided: the origin's sections as datatypes (the operation ends with the epoch) --
    call rma_sections()

    ! ---- Bcast (own count and datatype: a datatype over the section) ----------------------
    rx = GAP
    if (rank == 0) rx(1:2 * K:2) = [(50 + i, i = 1, K)]
    call MPI_Bcast(rx(1:2 * K:2), K, MPI_INTEGER, 0, MPI_COMM_WORLD)
    call expect(all(rx(1:2 * K:2) == [(50 + i, i = 1, K)]) .and. all(rx(2:2 * K:2) == GAP), &
                'Bcast, strided')

    call MPI_Allreduce(MPI_IN_PLACE, fails, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0 .and. fails == 0) print '(a)', 'No Errors'
    call MPI_Finalize()
    if (fails /= 0) stop 1

contains

    subroutine fill(x)
        integer, intent(out) :: x(:)
        x = [(rank * 1000 + i * 7, i = 1, size(x))]
    end subroutine

    subroutine expect(ok, what)
        logical, intent(in) :: ok
        character(len=*), intent(in) :: what
        if (.not. ok) then
            print '(a,i0,2a)', 'rank ', rank, ': failed: ', what
            fails = fails + 1
        end if
    end subroutine

    ! Put, Get, Accumulate (MPI_2INTEGER pairs over every other INTEGER: a pair's halves are
    ! apart), Get_accumulate, Fetch_and_op and Compare_and_swap with strided origin and result
    ! sections, checked against what the same calls give on contiguous buffers.
    subroutine rma_sections()
        integer, parameter :: W = 8
        integer, target :: wb(W)
        integer :: right, left, o(2 * W), res(2 * W), ores(W), one(3)
        type(MPI_Win) :: win
        type(MPI_Datatype) :: v2
        right = mod(rank + 1, np)
        left = mod(rank + np - 1, np)
        call MPI_Type_vector(2, 1, 2, MPI_INTEGER, v2)
        call MPI_Type_commit(v2)
        wb = 0
        call MPI_Win_create(wb, int(4 * W, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, &
                            win)
        ! Put of every other element; Get into every other element through a vector type
        o = [(rank * 100 + i, i = 1, 2 * W)]
        call MPI_Win_fence(0, win)
        call MPI_Put(o(1:2 * W:2), W, MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, W, MPI_INTEGER, win)
        call MPI_Win_fence(0, win)
        call MPI_F_SYNC_REG(wb)
        call expect(all(wb == [(left * 100 + 2 * i - 1, i = 1, W)]), 'Put from a strided section')
        res = GAP
        call MPI_Get(res(2:8:2), 1, v2, right, 2_MPI_ADDRESS_KIND, 2, MPI_INTEGER, win)
        call MPI_Win_fence(0, win)
        call MPI_F_SYNC_REG(wb)
        ! the vector takes virtual elements 1 and 3 of res(2:8:2): res(2) and res(6)
        call expect(res(2) == rank * 100 + 5 .and. res(6) == rank * 100 + 7 .and. &
                    count(res /= GAP) == 2, 'Get into a strided section through a vector type')
        ! Accumulate MAXLOC of (value, index) pairs whose halves are apart in the section
        o = GAP
        o(1:8:2) = [rank, rank * 10, np - rank, rank * 10 + 1]
        wb = 0
        call MPI_Win_fence(0, win)
        call MPI_F_SYNC_REG(wb)
        call MPI_Accumulate(o(1:8:2), 2, MPI_2INTEGER, 0, 0_MPI_ADDRESS_KIND, 2, MPI_2INTEGER, &
                            MPI_MAXLOC, win)
        call MPI_Win_fence(0, win)
        call MPI_F_SYNC_REG(wb)
        if (rank == 0) call expect(wb(1) == np - 1 .and. wb(2) == (np - 1) * 10 .and. &
                                   wb(3) == np .and. wb(4) == 1, 'Accumulate MAXLOC of split pairs')
        ! Get_accumulate: strided origin and result; the same on contiguous buffers
        wb = [(i, i = 1, W)]
        o = [(rank + i, i = 1, 2 * W)]
        res = GAP
        call MPI_Win_fence(0, win)
        call MPI_F_SYNC_REG(wb)
        call MPI_Get_accumulate(o(1:2 * W:2), W, MPI_INTEGER, res(2:2 * W:2), W, MPI_INTEGER, &
                                right, 0_MPI_ADDRESS_KIND, W, MPI_INTEGER, MPI_SUM, win)
        call MPI_Win_fence(0, win)
        call MPI_F_SYNC_REG(wb)
        call expect(all(res(2:2 * W:2) == [(i, i = 1, W)]) .and. all(res(1:2 * W:2) == GAP) .and. &
                    all(wb == [(i + left + 2 * i - 1, i = 1, W)]), 'Get_accumulate on sections')
        ! the left neighbour's Fetch_and_op below (passive target) may reach wb as soon as it
        ! leaves the fence: every rank checks first
        call MPI_Barrier(MPI_COMM_WORLD)
        ! Fetch_and_op and Compare_and_swap use the first element of their sections
        one = [7, GAP, GAP]
        res = GAP
        call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win)
        call MPI_Fetch_and_op(one(1:3:2), res(3:7:2), MPI_INTEGER, right, 0_MPI_ADDRESS_KIND, &
                              MPI_SUM, win)
        call MPI_Win_unlock(right, win)
        call MPI_Barrier(MPI_COMM_WORLD)
        call expect(res(3) == rank + 2, 'Fetch_and_op')   ! the right's wb(1): 1 + rank + 1
        call expect(count(res /= GAP) == 1, 'Fetch_and_op writes one element')
        ores = GAP
        call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win)
        call MPI_Compare_and_swap(one(1:3:2), wb(1:1), ores(1:5:2), MPI_INTEGER, rank, &
                                  0_MPI_ADDRESS_KIND, win)
        call MPI_Win_unlock(rank, win)
        call MPI_F_SYNC_REG(wb)
        call expect(count(ores /= GAP) == 1, 'Compare_and_swap writes one element')
        call MPI_Win_free(win)
        call MPI_Type_free(v2)
        ! a window's memory is one region: a strided section is refused, on every rank
        call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
        call MPI_Win_create(o(1:2 * W:2), int(4 * W, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, &
                            MPI_COMM_WORLD, win, one(1))
        call MPI_Error_class(one(1), one(2))
        call expect(one(2) == MPI_ERR_BUFFER, 'Win_create refuses a strided section')
        call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
    end subroutine

    ! One reduction on strided sections (sx(1:..:2) into rx(2:..:2)) and on contiguous copies.
    subroutine both_reduce(name, which)
        character(len=*), intent(in) :: name
        integer, intent(in) :: which
        integer :: n, m, rc(np)
        integer, allocatable :: s(:), r(:)
        n = K * np
        m = n
        if (which == 10 .or. which == 11) m = K
        rc = [(K + mod(i, 2), i = 1, np)]
        if (which == 12 .or. which == 13) then
            n = sum(rc)
            m = rc(rank + 1)
        end if
        allocate(s(n), r(m))
        s = sx(1:2 * n:2)
        rx = GAP
        r = GAP
        if (which == 9) then   ! Reduce_local: inout is the receive buffer
            rx(2:2 * m:2) = [(i, i = 1, m)]
            r = [(i, i = 1, m)]
        end if
        call run_reduce(which, n, rc, sx(1:2 * n:2), rx(2:2 * m:2))
        call run_reduce(which, n, rc, s, r)
        if ((which == 1 .or. which == 5) .and. rank /= 0) then
            call expect(all(rx == GAP), name // ' leaves a non-root buffer')
        else if ((which == 4 .or. which == 8) .and. rank == 0) then
            continue   ! Exscan's result at rank 0 is undefined
        else
            call expect(all(rx(2:2 * m:2) == r) .and. all(rx(1:2 * m + 1:2) == GAP), &
                        name // ' on strided sections')
        end if
        deallocate(s, r)
    end subroutine

    subroutine run_reduce(which, n, rc, s, r)
        integer, intent(in) :: which, n, rc(:)
        integer, intent(in), asynchronous :: s(:)
        integer, intent(inout), asynchronous :: r(:)
        type(MPI_Request) :: q
        select case (which)
        case (1)
            call MPI_Reduce(s, r, n, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
        case (2)
            call MPI_Allreduce(s, r, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
        case (3)
            call MPI_Scan(s, r, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
        case (4)
            call MPI_Exscan(s, r, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
        case (5)
            call MPI_Ireduce(s, r, n, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, q)
            call MPI_Wait(q, MPI_STATUS_IGNORE)
        case (6)
            call MPI_Iallreduce(s, r, n, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, q)
            call MPI_Wait(q, MPI_STATUS_IGNORE)
        case (7)
            call MPI_Iscan(s, r, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, q)
            call MPI_Wait(q, MPI_STATUS_IGNORE)
        case (8)
            call MPI_Iexscan(s, r, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, q)
            call MPI_Wait(q, MPI_STATUS_IGNORE)
        case (9)
            call MPI_Reduce_local(s, r, n, MPI_INTEGER, MPI_SUM)
        case (10)
            call MPI_Reduce_scatter_block(s, r, K, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
        case (11)
            call MPI_Ireduce_scatter_block(s, r, K, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, q)
            call MPI_Wait(q, MPI_STATUS_IGNORE)
        case (12)
            call MPI_Reduce_scatter(s, r, rc, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
        case (13)
            call MPI_Ireduce_scatter(s, r, rc, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, q)
            call MPI_Wait(q, MPI_STATUS_IGNORE)
        end select
    end subroutine

    ! One v, w or block collective on strided sections (a reversed send section too) and on
    ! contiguous copies. Rank i sends i+1 elements to each peer (v/w: to the root, or each).
    subroutine both_v(name, which)
        character(len=*), intent(in) :: name
        integer, intent(in) :: which
        integer :: ns, nr, me, scount(np), sdisp(np), rcount(np), rdisp(np)
        integer, allocatable :: s(:), r(:)
        type(MPI_Datatype) :: types(np)
        me = rank + 1
        types = MPI_INTEGER
        select case (which)
        case (1, 2, 5, 6)   ! gather-like: me elements from each rank into blocks with holes
            ns = me
            nr = sum(cnt) + np
            scount = 0
            rcount = cnt
            rdisp = dsp
        case (3, 4)          ! scatter-like: the reverse
            ns = sum(cnt) + np
            nr = me
            scount = cnt
            sdisp = dsp
            rcount = 0
        case (7, 8, 9, 10)   ! all-to-all: rank i sends i+1 elements to every rank
            scount = me
            sdisp = [((i - 1) * (me + 1), i = 1, np)]
            ns = np * (me + 1)
            rcount = cnt
            rdisp = dsp
            nr = sum(cnt) + np
        case default         ! the block collectives: K elements per rank
            ns = K
            nr = K
            if (which == 12 .or. which == 14 .or. which == 15) ns = K * np
            if (which /= 12) nr = K * np
            if (which == 11 .and. rank /= 0) nr = 1
        end select
        allocate(s(ns), r(nr))
        call fill(sx)
        s = sx(2 * ns:1:-2)
        rx = GAP
        r = GAP
        call run_v(which, ns, nr, scount, sdisp, rcount, rdisp, types, sx(2 * ns:1:-2), &
                   rx(1:2 * nr:2))
        call run_v(which, ns, nr, scount, sdisp, rcount, rdisp, types, s, r)
        call expect(all(rx(1:2 * nr:2) == r) .and. all(rx(2:2 * nr:2) == GAP), &
                    name // ' on strided sections')
        deallocate(s, r)
    end subroutine

    subroutine run_v(which, ns, nr, scount, sdisp, rcount, rdisp, types, s, r)
        integer, intent(in) :: which, ns, nr, scount(:), sdisp(:), rcount(:), rdisp(:)
        type(MPI_Datatype), intent(in) :: types(:)
        integer, intent(in), asynchronous :: s(:)
        integer, intent(inout), asynchronous :: r(:)
        type(MPI_Request) :: q
        integer :: bs(np), br(np)
        bs = sdisp * 4
        br = rdisp * 4
        select case (which)
        case (1)
            call MPI_Gatherv(s, ns, MPI_INTEGER, r, rcount, rdisp, MPI_INTEGER, 0, &
                             MPI_COMM_WORLD)
        case (2)
            call MPI_Igatherv(s, ns, MPI_INTEGER, r, rcount, rdisp, MPI_INTEGER, 0, &
                              MPI_COMM_WORLD, q)
            call MPI_Wait(q, MPI_STATUS_IGNORE)
        case (3)
            call MPI_Scatterv(s, scount, sdisp, MPI_INTEGER, r, nr, MPI_INTEGER, 0, &
                              MPI_COMM_WORLD)
        case (4)
            call MPI_Iscatterv(s, scount, sdisp, MPI_INTEGER, r, nr, MPI_INTEGER, 0, &
                               MPI_COMM_WORLD, q)
            call MPI_Wait(q, MPI_STATUS_IGNORE)
        case (5)
            call MPI_Allgatherv(s, ns, MPI_INTEGER, r, rcount, rdisp, MPI_INTEGER, &
                                MPI_COMM_WORLD)
        case (6)
            call MPI_Iallgatherv(s, ns, MPI_INTEGER, r, rcount, rdisp, MPI_INTEGER, &
                                 MPI_COMM_WORLD, q)
            call MPI_Wait(q, MPI_STATUS_IGNORE)
        case (7)
            call MPI_Alltoallv(s, scount, sdisp, MPI_INTEGER, r, rcount, rdisp, &
                               MPI_INTEGER, MPI_COMM_WORLD)
        case (8)
            call MPI_Ialltoallv(s, scount, sdisp, MPI_INTEGER, r, rcount, rdisp, &
                                MPI_INTEGER, MPI_COMM_WORLD, q)
            call MPI_Wait(q, MPI_STATUS_IGNORE)
        case (9)
            call MPI_Alltoallw(s, scount, bs, types, r, rcount, br, types, MPI_COMM_WORLD)
        case (10)
            call MPI_Ialltoallw(s, scount, bs, types, r, rcount, br, types, &
                                MPI_COMM_WORLD, q)
            call MPI_Wait(q, MPI_STATUS_IGNORE)
        case (11)
            call MPI_Gather(s, K, MPI_INTEGER, r, K, MPI_INTEGER, 0, MPI_COMM_WORLD)
        case (12)
            call MPI_Scatter(s, K, MPI_INTEGER, r, K, MPI_INTEGER, 0, MPI_COMM_WORLD)
        case (13)
            call MPI_Allgather(s, K, MPI_INTEGER, r, K, MPI_INTEGER, MPI_COMM_WORLD)
        case (14)
            call MPI_Alltoall(s, K, MPI_INTEGER, r, K, MPI_INTEGER, MPI_COMM_WORLD)
        case (15)
            call MPI_Ialltoall(s, K, MPI_INTEGER, r, K, MPI_INTEGER, MPI_COMM_WORLD, q)
            call MPI_Wait(q, MPI_STATUS_IGNORE)
        end select
    end subroutine
end program
