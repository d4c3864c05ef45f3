! The Fortran driver of gt4rs-icon: a Fortran model calling gt4rs's programs and the diffusion
! granule through the generated module, as ICON would.
!
!   driver compare ROOT BISECTIONS LEVELS STEPS   diffusion_run for STEPS steps against the
!                                                 same job run in Rust: every prognostic field
!                                                 bit-identical
!   driver verify ROOT BISECTIONS LEVELS          ICON's loops of calculate_nabla4 and
!                                                 apply_diffusion_to_vn against the programs
!   driver overhead CALLS                         a 1-point program call against the same
!                                                 arithmetic as a Fortran subroutine
!   driver timing ROOT BISECTIONS LEVELS STEPS    diffusion_run from Fortran against the same
!                                                 step run from Rust; init times
!   driver errors                                 bad input: a status and a message each
!
! Every mode prints what it found and stops with status 1 when a check fails.
program driver
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64, output_unit, error_unit
  use gt4rs_icon
  use main_job_arrays
  use icon_loops
  implicit none
  ! ICON's t_tangent_vectors.
  type :: tangent_vectors
    real(c_double) :: v1, v2
  end type tangent_vectors
  character(len=32) :: mode

  call get_command_argument(1, mode)
  select case (trim(mode))
  case ('compare')
    call compare(argument(2), argument(3), argument(4), argument(5))
  case ('verify')
    call verify(argument(2), argument(3), argument(4))
  case ('overhead')
    call overhead(argument(2))
  case ('timing')
    call timing(argument(2), argument(3), argument(4), argument(5))
  case ('errors')
    call errors()
  case default
    write (error_unit, '(a)') 'usage: driver compare|verify|overhead|timing|errors ARGS...'
    error stop 2
  end select

contains

  integer function argument(i)
    integer, intent(in) :: i
    character(len=32) :: text
    integer :: status
    call get_command_argument(i, text, status=status)
    if (status /= 0) then
      write (error_unit, '(a, i0)') 'missing argument ', i
      error stop 2
    end if
    read (text, *) argument
  end function argument

  real(c_double) function seconds()
    integer(int64) :: count, rate
    call system_clock(count, rate)
    seconds = real(count, c_double) / real(rate, c_double)
  end function seconds

  ! Whether two arrays hold the same bits.
  logical function same_bits(a, b)
    real(c_double), intent(in) :: a(:, :), b(:, :)
    same_bits = all(transfer(a, 0_int64, size(a)) == transfer(b, 0_int64, size(b)))
  end function same_bits

  subroutine report(name, a, b, ok)
    character(len=*), intent(in) :: name
    real(c_double), intent(in) :: a(:, :), b(:, :)
    logical, intent(inout) :: ok
    if (same_bits(a, b)) then
      write (output_unit, '(a, a)') name, ': bit-identical'
    else
      write (output_unit, '(a, a, es10.3)') name, ': differs, largest difference ', &
          maxval(abs(a - b))
      ok = .false.
    end if
  end subroutine report

  subroutine compare(root, bisections, levels, steps)
    integer, intent(in) :: root, bisections, levels, steps
    real(c_double), allocatable :: vn_ref(:, :), w_ref(:, :), theta_ref(:, :), exner_ref(:, :)
    real(c_double), allocatable :: vn_start(:, :)
    integer :: step
    logical :: ok
    call load_main_job(root, bisections, levels, 3)
    allocate (vn_start(ne, nlev))
    vn_start = vn(1:ne, :, 1)
    call init_granule()
    do step = 1, steps
      call check(diffusion_run(w(:, :, 1), vn(:, :, 1), exner(:, :, 1), theta_v(:, :, 1), &
          hdef_ic(:, :, 1), div_ic(:, :, 1), dwdx(:, :, 1), dwdy(:, :, 1), dtime, &
          step == 1), 'diffusion_run')
    end do
    allocate (vn_ref(ne, nlev), w_ref(nc, nlev + 1), theta_ref(nc, nlev), exner_ref(nc, nlev))
    call check(main_job_reference(int(steps, c_int32_t), dtime, vn_ref, w_ref, theta_ref, &
        exner_ref), 'main_job_reference')
    write (output_unit, '(a, i0, a, i0, a, i0, a, i0, a, i0, a)') 'R', root, 'B', bisections, &
        ' x ', nlev, ' levels, nproma ', nproma, ', ', steps, ' steps through the C ABI:'
    write (output_unit, '(a, es10.3, a)') 'vn changed by ', &
        sqrt(sum((vn(1:ne, :, 1) - vn_start)**2) / size(vn_start)), ' m/s (rms) over the steps'
    ok = .true.
    call report('vn', vn(1:ne, :, 1), vn_ref, ok)
    call report('w', w(1:nc, :, 1), w_ref, ok)
    call report('theta_v', theta_v(1:nc, :, 1), theta_ref, ok)
    call report('exner', exner(1:nc, :, 1), exner_ref, ok)
    if (any(vn(ne + 1:, :, 1) /= padding_value) .or. any(w(nc + 1:, :, 1) /= padding_value) &
        .or. any(theta_v(nc + 1:, :, 1) /= padding_value) &
        .or. any(exner(nc + 1:, :, 1) /= padding_value)) then
      write (output_unit, '(a)') 'rows past the points (nproma padding) were written'
      ok = .false.
    end if
    if (.not. ok) error stop 1
    write (output_unit, '(a)') 'every prognostic field is bit-identical to the Rust run'
    call check(finalize(), 'finalize')
  end subroutine compare

  ! Random values in [-1, 1) scaled by <scale>.
  subroutine fill_random(a, scale)
    real(c_double), intent(out) :: a(:, :)
    real(c_double), intent(in) :: scale
    call random_number(a)
    a = scale * (2.0_c_double * a - 1.0_c_double)
  end subroutine fill_random

  real(c_double) function relative_difference(a, b)
    real(c_double), intent(in) :: a(:, :), b(:, :)
    relative_difference = maxval(abs(a - b)) / max(maxval(abs(b)), tiny(1.0_c_double))
  end function relative_difference

  subroutine verify(root, bisections, levels)
    integer, intent(in) :: root, bisections, levels
    real(c_double), parameter :: tolerance = 1e-13_c_double
    real(c_double), allocatable :: u_vert(:, :), v_vert(:, :), z_nabla2_e(:, :), kh_smag_e(:, :)
    real(c_double), allocatable :: z4_icon(:, :), z4_gt4rs(:, :), vn_icon(:, :), vn_gt4rs(:, :)
    real(c_double), allocatable :: diff_multfac_vn(:, :), z4_wide(:, :)
    type(tangent_vectors), allocatable, target :: pn(:, :)
    type(gt4rs_icon_options) :: options
    type(calculate_nabla4_program) :: nabla4
    type(apply_diffusion_to_vn_program) :: to_vn
    real(c_double) :: difference, nudgezone_diff, fac_bdydiff_v
    integer :: seed_size, start_2nd_nudge, case
    integer, allocatable :: seed(:)
    logical :: limited, ok
    call load_main_job(root, bisections, levels, 5)
    call random_seed(size=seed_size)
    allocate (seed(seed_size))
    seed = 20260422
    call random_seed(put=seed)
    allocate (u_vert(nproma, nlev), v_vert(nproma, nlev), z_nabla2_e(nproma, nlev), &
        kh_smag_e(nproma, nlev), z4_icon(nproma, nlev), z4_gt4rs(nproma, nlev), &
        vn_icon(nproma, nlev), vn_gt4rs(nproma, nlev), diff_multfac_vn(nlev, 1), &
        z4_wide(2 * nproma, nlev))
    call fill_random(u_vert, 30.0_c_double)
    call fill_random(v_vert, 30.0_c_double)
    call fill_random(z_nabla2_e, 1e-8_c_double)
    call fill_random(kh_smag_e, 1e-3_c_double)
    call fill_random(diff_multfac_vn, 1e-4_c_double)
    z4_icon = -999.0_c_double
    z4_gt4rs = -999.0_c_double

    call check(gt4rs_icon_options_new(GT4RS_BACKEND_CPU, options), 'gt4rs_icon_options_new')
    call check(gt4rs_icon_connectivity_e2c2v(options, e2c2v_idx, e2c2v_blk, int(ne, c_int64_t), &
        int(nv, c_int64_t)), 'gt4rs_icon_connectivity_e2c2v')
    call check(calculate_nabla4_compile(options, nabla4), 'calculate_nabla4_compile')
    call check(apply_diffusion_to_vn_compile(options, to_vn), 'apply_diffusion_to_vn_compile')
    call gt4rs_icon_options_free(options)

    ok = .true.
    call nabla4_loop(1, ne, nlev, e2c2v_idx, u_vert, v_vert, primal_normal_vert_x, &
        primal_normal_vert_y, z_nabla2_e, inv_vert_vert_length, inv_primal_edge_length, z4_icon)
    ! ICON's edges 1..ne are gt4rs's 0..ne (0-based, end exclusive).
    call check(calculate_nabla4(nabla4, u_vert, v_vert, primal_normal_vert_x, &
        primal_normal_vert_y, z_nabla2_e, inv_vert_vert_length, inv_primal_edge_length, &
        z4_gt4rs, 0_c_int32_t, int(ne, c_int32_t), 0_c_int32_t, int(nlev, c_int32_t)), &
        'calculate_nabla4')
    difference = relative_difference(z4_gt4rs(1:ne, :), z4_icon(1:ne, :))
    write (output_unit, '(a, es10.3, a, l1, a)') 'calculate_nabla4: largest relative difference ', &
        difference, ' (bit-identical: ', same_bits(z4_gt4rs(1:ne, :), z4_icon(1:ne, :)), ')'
    if (difference > tolerance .or. any(z4_gt4rs(ne + 1:, :) /= -999.0_c_double)) ok = .false.

    ! Sections: the output every other row of a wider array (passed where it lies, stride 2),
    ! and the normals as components of a derived type, as ICON keeps them
    ! (edges%primal_normal_vert(:, :, n)%v1; gfortran 12 copies such component sections into a
    ! temporary before the call, plain sections it passes in place).
    allocate (pn(nproma, 4))
    pn%v1 = primal_normal_vert_x
    pn%v2 = primal_normal_vert_y
    z4_wide = -999.0_c_double
    call check(calculate_nabla4(nabla4, u_vert, v_vert, pn%v1, pn%v2, z_nabla2_e, &
        inv_vert_vert_length, inv_primal_edge_length, z4_wide(1::2, :), 0_c_int32_t, &
        int(ne, c_int32_t), 0_c_int32_t, int(nlev, c_int32_t)), 'calculate_nabla4 on sections')
    write (output_unit, '(a, l1)') 'calculate_nabla4 on sections, bit-identical: ', &
        same_bits(z4_wide(1::2, :), z4_gt4rs)
    if (.not. same_bits(z4_wide(1::2, :), z4_gt4rs) .or. any(z4_wide(2::2, :) /= -999.0_c_double)) &
        ok = .false.

    nudgezone_diff = 0.04_c_double / (0.1_c_double + epsilon(1.0_c_double))
    fac_bdydiff_v = sqrt(5.0_c_double) / 200.0_c_double
    do case = 1, 2
      limited = case == 2
      start_2nd_nudge = merge(ne / 7, 1, limited)
      call fill_random(vn_icon, 20.0_c_double)
      vn_gt4rs = vn_icon
      call apply_to_vn_loop(1, ne, nlev, start_2nd_nudge, limited, area_edge, kh_smag_e, &
          z_nabla2_e, z4_icon, diff_multfac_vn(:, 1), nudgecoeff_e, nudgezone_diff, &
          fac_bdydiff_v, vn_icon)
      call check(apply_diffusion_to_vn(to_vn, u_vert, v_vert, primal_normal_vert_x, &
          primal_normal_vert_y, z_nabla2_e, inv_vert_vert_length, inv_primal_edge_length, &
          area_edge, kh_smag_e, diff_multfac_vn(:, 1), nudgecoeff_e, vn_gt4rs, nudgezone_diff, &
          fac_bdydiff_v, int(start_2nd_nudge - 1, c_int32_t), limited, 0_c_int32_t, &
          int(ne, c_int32_t), 0_c_int32_t, int(nlev, c_int32_t)), 'apply_diffusion_to_vn')
      difference = relative_difference(vn_gt4rs(1:ne, :), vn_icon(1:ne, :))
      write (output_unit, '(a, l1, a, es10.3, a, l1, a)') 'apply_diffusion_to_vn (limited area ', &
          limited, '): largest relative difference ', difference, ' (bit-identical: ', &
          same_bits(vn_gt4rs(1:ne, :), vn_icon(1:ne, :)), ')'
      if (difference > tolerance) ok = .false.
    end do
    call calculate_nabla4_free(nabla4)
    call apply_diffusion_to_vn_free(to_vn)
    if (.not. ok) error stop 1
    write (output_unit, '(a)') 'verification passed'
  end subroutine verify

  subroutine overhead(calls)
    integer, intent(in) :: calls
    integer, parameter :: rounds = 5, n = 8
    integer(c_int32_t) :: e2c2v_table(n, 1, 4), blk(n, 1, 4)
    real(c_double) :: u(n, 1), v(n, 1), pn_x(n, 4), pn_y(n, 4), z2(n, 1), ivv(n), ipe(n)
    real(c_double) :: out_gt4rs(n, 1), out_fortran(n, 1)
    real(c_double) :: start, best_call, best_loop, took
    type(gt4rs_icon_options) :: options
    type(calculate_nabla4_program) :: nabla4
    integer :: i, round, je
    do i = 1, n
      e2c2v_table(i, 1, :) = [mod(i, n) + 1, mod(i + 1, n) + 1, mod(i + 2, n) + 1, mod(i + 4, n) + 1]
    end do
    blk = 1
    call random_number(u); call random_number(v); call random_number(pn_x)
    call random_number(pn_y); call random_number(z2); call random_number(ivv)
    call random_number(ipe)
    out_gt4rs = 0
    out_fortran = 0
    call check(gt4rs_icon_options_new(GT4RS_BACKEND_CPU, options), 'gt4rs_icon_options_new')
    call check(gt4rs_icon_connectivity_e2c2v(options, e2c2v_table, blk, int(n, c_int64_t), &
        int(n, c_int64_t)), 'gt4rs_icon_connectivity_e2c2v')
    call check(calculate_nabla4_compile(options, nabla4), 'calculate_nabla4_compile')
    call gt4rs_icon_options_free(options)
    best_call = huge(1.0_c_double)
    best_loop = huge(1.0_c_double)
    do round = 1, rounds
      start = seconds()
      do i = 1, calls
        je = mod(i, n)
        if (calculate_nabla4(nabla4, u, v, pn_x, pn_y, z2, ivv, ipe, out_gt4rs, &
            int(je, c_int32_t), int(je + 1, c_int32_t), 0_c_int32_t, 1_c_int32_t) /= GT4RS_OK) &
            call check(1_c_int, 'calculate_nabla4')
      end do
      took = seconds() - start
      best_call = min(best_call, took)
      start = seconds()
      do i = 1, calls
        je = mod(i, n)
        call nabla4_point(je + 1, 1, e2c2v_table, u, v, pn_x, pn_y, z2, ivv, ipe, out_fortran)
      end do
      took = seconds() - start
      best_loop = min(best_loop, took)
    end do
    call calculate_nabla4_free(nabla4)
    if (.not. same_bits(out_gt4rs, out_fortran)) then
      write (output_unit, '(a)') 'the program and the subroutine disagree'
      error stop 1
    end if
    write (output_unit, '(a, i0, a)') '1-point calculate_nabla4, best of ', rounds, ' rounds:'
    write (output_unit, '(a, f8.1, a)') 'program call from Fortran: ', &
        1e9_c_double * best_call / calls, ' ns per call'
    write (output_unit, '(a, f8.1, a)') 'Fortran subroutine:        ', &
        1e9_c_double * best_loop / calls, ' ns per call'
    write (output_unit, '(a, f8.1, a)') 'overhead:                  ', &
        1e9_c_double * (best_call - best_loop) / calls, ' ns per call'
  end subroutine overhead

  ! The median of <values> (sorted in place).
  real(c_double) function median(values)
    real(c_double), intent(inout) :: values(:)
    real(c_double) :: v
    integer :: i, j, n
    n = size(values)
    do i = 2, n
      v = values(i)
      j = i - 1
      do while (j >= 1)
        if (values(j) <= v) exit
        values(j + 1) = values(j)
        j = j - 1
      end do
      values(j + 1) = v
    end do
    median = 0.5_c_double * (values((n + 1) / 2) + values(n / 2 + 1))
  end function median

  ! diffusion_run from Fortran against the same step run from Rust on the same granule and
  ! arrays, alternating step by step so that both see the same machine.
  subroutine timing(root, bisections, levels, steps)
    integer, intent(in) :: root, bisections, levels, steps
    real(c_double) :: start, setup, grid_time, init_time, fortran_median, rust_median
    real(c_double), allocatable :: fortran_steps(:), rust_steps(:)
    real(c_double) :: rust_step(1)
    integer :: step
    start = seconds()
    call load_main_job(root, bisections, levels, 0)
    setup = seconds() - start
    start = seconds()
    call check(grid_init(c2e_idx, c2e_blk, e2c_idx, e2c_blk, c2e2c_idx, c2e2c_blk, v2e_idx, &
        v2e_blk, e2c2v_idx, e2c2v_blk, cell_start, cell_end, edge_start, edge_end, &
        vertex_start, vertex_end, tangent_orientation, inv_primal_edge_length, &
        inv_dual_edge_length, inv_vert_vert_length, area_edge, primal_normal_vert_x, &
        primal_normal_vert_y, dual_normal_vert_x, dual_normal_vert_y, cell_area, &
        int(nc, c_int32_t), int(ne, c_int32_t), int(nv, c_int32_t)), 'grid_init')
    grid_time = seconds() - start
    start = seconds()
    call check(granule_config(), 'diffusion_init')
    init_time = seconds() - start
    call check(diffusion_run(w(:, :, 1), vn(:, :, 1), exner(:, :, 1), theta_v(:, :, 1), &
        hdef_ic(:, :, 1), div_ic(:, :, 1), dwdx(:, :, 1), dwdy(:, :, 1), dtime, .true.), &
        'diffusion_run')
    allocate (fortran_steps(steps), rust_steps(steps))
    do step = 1, steps
      start = seconds()
      call check(diffusion_run(w(:, :, 1), vn(:, :, 1), exner(:, :, 1), theta_v(:, :, 1), &
          hdef_ic(:, :, 1), div_ic(:, :, 1), dwdx(:, :, 1), dwdy(:, :, 1), dtime, .false.), &
          'diffusion_run')
      fortran_steps(step) = seconds() - start
      call check(diffusion_run_timed_in_rust(w(:, :, 1), vn(:, :, 1), exner(:, :, 1), &
          theta_v(:, :, 1), hdef_ic(:, :, 1), div_ic(:, :, 1), dwdx(:, :, 1), dwdy(:, :, 1), &
          dtime, rust_step), 'diffusion_run_timed_in_rust')
      rust_steps(step) = rust_step(1)
    end do
    write (output_unit, '(a, i0, a, i0, a, i0, a, i0, a)') 'R', root, 'B', bisections, ' x ', &
        nlev, ' levels, ', steps, ' steps each way, alternating:'
    write (output_unit, '(a, f10.1, a)') 'main job setup (Rust, not timed by ICON): ', &
        1e3_c_double * setup, ' ms'
    write (output_unit, '(a, f10.1, a)') 'grid_init:      ', 1e3_c_double * grid_time, ' ms'
    write (output_unit, '(a, f10.1, a)') 'diffusion_init: ', 1e3_c_double * init_time, ' ms'
    write (output_unit, '(a, f10.3, a, f10.3, a)') 'diffusion_run from Fortran: mean ', &
        1e3_c_double * sum(fortran_steps) / steps, ' ms, best ', &
        1e3_c_double * minval(fortran_steps), ' ms'
    write (output_unit, '(a, f10.3, a, f10.3, a)') 'the same step from Rust:    mean ', &
        1e3_c_double * sum(rust_steps) / steps, ' ms, best ', 1e3_c_double * minval(rust_steps), ' ms'
    fortran_median = median(fortran_steps)
    rust_median = median(rust_steps)
    write (output_unit, '(a, f10.3, a, f10.3, a)') 'median per step: Fortran ', &
        1e3_c_double * fortran_median, ' ms, Rust ', 1e3_c_double * rust_median, ' ms'
    write (output_unit, '(a, f8.2, a)') 'Fortran / Rust (medians): ', &
        100.0_c_double * (fortran_median / rust_median - 1.0_c_double), ' %'
    call check(finalize(), 'finalize')
  end subroutine timing

  ! A call expected to fail with <expected>; prints its message.
  subroutine expect(status, expected, what)
    integer(c_int), intent(in) :: status, expected
    character(len=*), intent(in) :: what
    if (status /= expected) then
      write (output_unit, '(a, a, i0, a, i0, a, a)') what, ': status ', status, ', expected ', &
          expected, ': ', gt4rs_icon_last_error()
      error stop 1
    end if
    write (output_unit, '(a, a, a)') what, ': ', gt4rs_icon_last_error()
  end subroutine expect

  subroutine errors()
    real(c_double), allocatable :: small(:, :)
    integer(c_int32_t), allocatable :: zero_based(:, :, :)
    type(gt4rs_icon_options) :: options
    type(calculate_nabla4_program) :: nabla4
    real(c_double) :: out(4, 2)
    call load_main_job(2, 0, 4, 0)
    ! A call before init.
    call expect(diffusion_run(w(:, :, 1), vn(:, :, 1), exner(:, :, 1), theta_v(:, :, 1), &
        dtime=dtime, linit=.true.), GT4RS_NOT_INITIALISED, 'diffusion_run before init')
    call expect(granule_config(), GT4RS_NOT_INITIALISED, 'diffusion_init before grid_init')
    ! A 0-based table where ICON's 1-based one belongs.
    zero_based = c2e2c_idx - 1
    call expect(grid_init(c2e_idx, c2e_blk, e2c_idx, e2c_blk, zero_based, c2e2c_blk, v2e_idx, &
        v2e_blk, e2c2v_idx, e2c2v_blk, cell_start, cell_end, edge_start, edge_end, &
        vertex_start, vertex_end, tangent_orientation, inv_primal_edge_length, &
        inv_dual_edge_length, inv_vert_vert_length, area_edge, primal_normal_vert_x, &
        primal_normal_vert_y, dual_normal_vert_x, dual_normal_vert_y, cell_area, &
        int(nc, c_int32_t), int(ne, c_int32_t), int(nv, c_int32_t)), GT4RS_CONNECTIVITY, &
        'grid_init with a 0-based C2E2C')
    call init_granule()
    ! A second init.
    call expect(granule_config(), GT4RS_ALREADY_INITIALISED, 'a second diffusion_init')
    ! A size that disagrees with the granule's levels.
    allocate (small(nproma, nlev - 1))
    small = 0
    call expect(diffusion_run(w(:, :, 1), vn(:, :, 1), small, theta_v(:, :, 1), dtime=dtime, &
        linit=.true.), GT4RS_SHAPE, 'diffusion_run with exner one level short')
    ! One array passed for two arguments.
    call expect(diffusion_run(w(:, :, 1), vn(:, :, 1), exner(:, :, 1), exner(:, :, 1), &
        dtime=dtime, linit=.true.), GT4RS_ARGUMENT, 'diffusion_run with exner as theta_v')
    ! A program call before its compile, then one whose domain leaves the output.
    out = 0
    call expect(calculate_nabla4(nabla4, w(:, 1:2, 1), w(:, 1:2, 1), primal_normal_vert_x, &
        primal_normal_vert_y, out, inv_vert_vert_length, inv_primal_edge_length, out, &
        0_c_int32_t, 4_c_int32_t, 0_c_int32_t, 2_c_int32_t), GT4RS_NOT_INITIALISED, &
        'calculate_nabla4 before compile')
    call check(gt4rs_icon_options_new(GT4RS_BACKEND_CPU, options), 'gt4rs_icon_options_new')
    call check(gt4rs_icon_connectivity_e2c2v(options, e2c2v_idx, e2c2v_blk, int(ne, c_int64_t), &
        int(nv, c_int64_t)), 'gt4rs_icon_connectivity_e2c2v')
    call check(calculate_nabla4_compile(options, nabla4), 'calculate_nabla4_compile')
    call gt4rs_icon_options_free(options)
    call expect(calculate_nabla4(nabla4, w(:, 1:2, 1), dwdx(:, 1:2, 1), primal_normal_vert_x, &
        primal_normal_vert_y, hdef_ic(:, 1:2, 1), inv_vert_vert_length, inv_primal_edge_length, &
        out, 0_c_int32_t, int(ne, c_int32_t), 0_c_int32_t, 2_c_int32_t), GT4RS_DOMAIN, &
        'calculate_nabla4 over more edges than its output holds')
    call calculate_nabla4_free(nabla4)
    call check(finalize(), 'finalize')
    write (output_unit, '(a)') 'every bad input was refused with a status and a message'
  end subroutine errors
end program driver
