! The Fortran binding of the omp_* routines (omp_lib), as gfortran calls
! them: the team's size and numbers, levels and ancestors, ICVs set and read
! back (threads, dynamic, max active levels, schedule, default device), both
! kinds of lock under contention, wtime, in_final in a final task, the
! affinity format (blank-padded), an allocator with a trait, and
! integer(8) arguments (the _8_ entry points). Every check prints one FAIL
! line; the program stops with status 1 if any failed.
program gomp_fortran
  use omp_lib
  implicit none
  integer :: nfail, nthr, total, lvl, anc, kind, chunk, i, counted, nested_count
  integer(omp_lock_kind) :: lck
  integer(omp_nest_lock_kind) :: nlck
  integer(omp_sched_kind) :: sk
  integer(omp_allocator_handle_kind) :: al
  type(omp_alloctrait) :: traits(1)
  integer(8) :: big
  logical :: fin
  double precision :: t0, t1
  character(len=40) :: fmt

  nfail = 0
  call omp_set_num_threads(2)
  if (omp_get_max_threads() /= 2) call fail('omp_get_max_threads after omp_set_num_threads(2)')
  nthr = 0
  total = 0
!$omp parallel reduction(+:total)
  total = total + omp_get_thread_num() + 1
!$omp single
  nthr = omp_get_num_threads()
  lvl = omp_get_level()
  if (.not. omp_in_parallel()) call fail('omp_in_parallel in a region')
!$omp end single
!$omp end parallel
  if (nthr /= 2) call fail('omp_get_num_threads in a region of 2')
  if (total /= 3) call fail('omp_get_thread_num: the threads are not 0 and 1')
  if (lvl /= 1) call fail('omp_get_level in a region')
  if (omp_in_parallel()) call fail('omp_in_parallel outside a region')

  call omp_set_max_active_levels(2)
  if (omp_get_max_active_levels() /= 2) call fail('omp_get_max_active_levels')
  anc = -1
!$omp parallel num_threads(2)
!$omp parallel num_threads(2)
  if (omp_get_thread_num() == 1 .and. omp_get_ancestor_thread_num(1) == 1) then
!$omp atomic write
    anc = omp_get_level() * 10 + omp_get_team_size(2)
  end if
!$omp end parallel
!$omp end parallel
  if (anc /= 22) call fail('omp_get_ancestor_thread_num / omp_get_team_size / level in a nested region')

  call omp_set_dynamic(.true.)
  if (.not. omp_get_dynamic()) call fail('omp_set_dynamic(.true.)')
  call omp_set_dynamic(.false.)
  call omp_set_schedule(omp_sched_dynamic, 7)
  call omp_get_schedule(sk, chunk)
  if (sk /= omp_sched_dynamic .or. chunk /= 7) call fail('omp_get_schedule after omp_set_schedule(dynamic, 7)')
  kind = 0
  call omp_set_default_device(3)
  if (omp_get_default_device() /= 3) call fail('omp_get_default_device')
  call omp_set_default_device(0)
  if (omp_get_num_procs() < 1) call fail('omp_get_num_procs')

  call omp_init_lock(lck)
  call omp_init_nest_lock(nlck)
  counted = 0
  nested_count = 0
!$omp parallel num_threads(2)
  do i = 1, 1000
    call omp_set_lock(lck)
    counted = counted + 1
    call omp_unset_lock(lck)
    call omp_set_nest_lock(nlck)
    call omp_set_nest_lock(nlck)
    nested_count = nested_count + 1
    call omp_unset_nest_lock(nlck)
    call omp_unset_nest_lock(nlck)
  end do
!$omp end parallel
  if (counted /= 2000) call fail('omp_set_lock: lost updates')
  if (nested_count /= 2000) call fail('omp_set_nest_lock: lost updates')
  if (.not. omp_test_lock(lck)) call fail('omp_test_lock on a free lock')
  call omp_unset_lock(lck)
  if (omp_test_nest_lock(nlck) /= 1) call fail('omp_test_nest_lock on a free lock')
  if (omp_test_nest_lock(nlck) /= 2) call fail('omp_test_nest_lock by its owner')
  call omp_unset_nest_lock(nlck)
  call omp_unset_nest_lock(nlck)
  call omp_destroy_lock(lck)
  call omp_destroy_nest_lock(nlck)

  t0 = omp_get_wtime()
  t1 = omp_get_wtime()
  if (t1 < t0 .or. omp_get_wtick() <= 0) call fail('omp_get_wtime / omp_get_wtick')

  fin = .false.
!$omp parallel num_threads(2)
!$omp single
!$omp task final(.true.) shared(fin)
  fin = omp_in_final()
!$omp end task
!$omp end single
!$omp end parallel
  if (.not. fin) call fail('omp_in_final in a final task')

  call omp_set_affinity_format('T%n')
  fmt = 'x'
  i = omp_get_affinity_format(fmt)
  if (i /= 3 .or. fmt /= 'T%n') call fail('omp_get_affinity_format after omp_set_affinity_format')

  traits(1)%key = omp_atk_alignment
  traits(1)%value = 64
  al = omp_init_allocator(omp_default_mem_space, 1, traits)
  if (al == omp_null_allocator) call fail('omp_init_allocator with an alignment trait')
  call omp_destroy_allocator(al)

  ! integer(8) arguments: the _8_ entry points
  big = 2
  call omp_set_num_threads(int(big, 8))
  if (omp_get_max_threads() /= 2) call fail('omp_set_num_threads with an integer(8) argument')

  if (nfail > 0) stop 1
  print '(a)', 'PASS'
contains
  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a,a)', 'FAIL gomp_fortran.f90: ', what
    nfail = nfail + 1
  end subroutine fail
end program gomp_fortran
