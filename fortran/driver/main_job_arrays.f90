! The main job's grid, fields and state held as ICON holds them: (nproma, ...) arrays with the
! horizontal index fastest, nblks = 1, 1-based idx/blk neighbour tables. The Rust side fills
! them (main_job_*); the granule then gets them through grid_init and diffusion_init exactly
! as ICON calls it.
module main_job_arrays
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit, int64
  use gt4rs_icon
  implicit none
  private
  public :: load_main_job, init_granule, check, granule_config

  integer, public :: nproma, nc, ne, nv, nlev
  logical, public :: steep, limited_area
  real(c_double), public :: damping_height, dtime
  real(c_double), parameter, public :: padding_value = -777.0_c_double

  ! Neighbour tables (nproma, nblks = 1, n), 1-based.
  integer(c_int32_t), allocatable, public :: c2e_idx(:, :, :), c2e_blk(:, :, :)
  integer(c_int32_t), allocatable, public :: e2c_idx(:, :, :), e2c_blk(:, :, :)
  integer(c_int32_t), allocatable, public :: c2e2c_idx(:, :, :), c2e2c_blk(:, :, :)
  integer(c_int32_t), allocatable, public :: v2e_idx(:, :, :), v2e_blk(:, :, :)
  integer(c_int32_t), allocatable, public :: e2c2v_idx(:, :, :), e2c2v_blk(:, :, :)
  ! Zone start and end indices (min_rl:max_rl).
  integer(c_int32_t), public :: cell_start(-8:5), cell_end(-8:5)
  integer(c_int32_t), public :: edge_start(-13:10), edge_end(-13:10)
  integer(c_int32_t), public :: vertex_start(-7:5), vertex_end(-7:5)
  ! Geometry.
  real(c_double), allocatable, public :: tangent_orientation(:), inv_primal_edge_length(:), &
      inv_dual_edge_length(:), inv_vert_vert_length(:), area_edge(:), cell_area(:)
  real(c_double), allocatable, public :: primal_normal_vert_x(:, :), primal_normal_vert_y(:, :), &
      dual_normal_vert_x(:, :), dual_normal_vert_y(:, :)
  ! Vertical grid, metric and interpolation fields.
  real(c_double), allocatable, public :: vct_a(:), theta_ref_mc(:, :, :), wgtfac_c(:, :, :)
  real(c_double), allocatable, public :: e_bln_c_s(:, :), geofac_div(:, :), geofac_grg_x(:, :), &
      geofac_grg_y(:, :), geofac_n2s(:, :), nudgecoeff_e(:), rbf_coeff_1(:, :), rbf_coeff_2(:, :)
  logical(c_bool), allocatable, public :: mask_hdiff(:, :, :)
  real(c_double), allocatable, public :: zd_diffcoef(:, :, :), zd_intcoef(:, :, :, :)
  integer(c_int32_t), allocatable, public :: zd_vertoffset(:, :, :, :)
  ! Prognostic state and turbulence diagnostics (nproma, nlev[+1], nblks = 1).
  real(c_double), allocatable, public :: vn(:, :, :), w(:, :, :), theta_v(:, :, :), exner(:, :, :)
  real(c_double), allocatable, public :: hdef_ic(:, :, :), div_ic(:, :, :), dwdx(:, :, :), dwdy(:, :, :)

contains

  ! Stops with the library's message when a call failed.
  subroutine check(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= GT4RS_OK) then
      write (error_unit, '(a, a, i0, a, a)') what, ' failed with status ', status, ': ', &
          gt4rs_icon_last_error()
      error stop 1
    end if
  end subroutine check

  ! Sets up the main job on R<root>B<bisections> with <levels> levels and fills every array;
  ! nproma is the largest point count plus <padding> rows the granule must not touch.
  subroutine load_main_job(root, bisections, levels, padding)
    integer, intent(in) :: root, bisections, levels, padding
    integer(c_int64_t) :: sizes(6)
    real(c_double) :: reals(2)
    call check(main_job_setup(int(root, c_int32_t), int(bisections, c_int32_t), &
        int(levels, c_int32_t), .true.), 'main_job_setup')
    call check(main_job_sizes(sizes, reals), 'main_job_sizes')
    nc = int(sizes(1)); ne = int(sizes(2)); nv = int(sizes(3)); nlev = int(sizes(4))
    steep = sizes(5) == 1
    limited_area = sizes(6) == 1
    damping_height = reals(1)
    dtime = reals(2)
    nproma = max(nc, ne, nv) + padding

    allocate (c2e_idx(nproma, 1, 3), c2e_blk(nproma, 1, 3), e2c_idx(nproma, 1, 2), &
        e2c_blk(nproma, 1, 2), c2e2c_idx(nproma, 1, 3), c2e2c_blk(nproma, 1, 3), &
        v2e_idx(nproma, 1, 6), v2e_blk(nproma, 1, 6), e2c2v_idx(nproma, 1, 4), e2c2v_blk(nproma, 1, 4))
    allocate (tangent_orientation(nproma), inv_primal_edge_length(nproma), &
        inv_dual_edge_length(nproma), inv_vert_vert_length(nproma), area_edge(nproma), &
        cell_area(nproma))
    allocate (primal_normal_vert_x(nproma, 4), primal_normal_vert_y(nproma, 4), &
        dual_normal_vert_x(nproma, 4), dual_normal_vert_y(nproma, 4))
    call check(main_job_grid(c2e_idx, c2e_blk, e2c_idx, e2c_blk, c2e2c_idx, c2e2c_blk, &
        v2e_idx, v2e_blk, e2c2v_idx, e2c2v_blk, cell_start, cell_end, edge_start, edge_end, &
        vertex_start, vertex_end, tangent_orientation, inv_primal_edge_length, &
        inv_dual_edge_length, inv_vert_vert_length, area_edge, primal_normal_vert_x, &
        primal_normal_vert_y, dual_normal_vert_x, dual_normal_vert_y, cell_area), 'main_job_grid')

    allocate (vct_a(nlev + 1), theta_ref_mc(nproma, nlev, 1), wgtfac_c(nproma, nlev + 1, 1))
    allocate (e_bln_c_s(nproma, 3), geofac_div(nproma, 3), geofac_grg_x(nproma, 4), &
        geofac_grg_y(nproma, 4), geofac_n2s(nproma, 4), nudgecoeff_e(nproma), &
        rbf_coeff_1(nproma, 6), rbf_coeff_2(nproma, 6))
    allocate (vn(nproma, nlev, 1), w(nproma, nlev + 1, 1), theta_v(nproma, nlev, 1), &
        exner(nproma, nlev, 1))
    allocate (hdef_ic(nproma, nlev + 1, 1), div_ic(nproma, nlev + 1, 1), &
        dwdx(nproma, nlev + 1, 1), dwdy(nproma, nlev + 1, 1))
    hdef_ic = 0; div_ic = 0; dwdx = 0; dwdy = 0
    ! The rows past the points: the granule must leave them as they are.
    vn = padding_value; w = padding_value; theta_v = padding_value; exner = padding_value
    if (steep) then
      allocate (mask_hdiff(nproma, nlev, 1), zd_diffcoef(nproma, nlev, 1), &
          zd_vertoffset(nproma, 3, nlev, 1), zd_intcoef(nproma, 3, nlev, 1))
      ! A logical array crossing the C ABI holds 0 or 1, even where it is written.
      mask_hdiff = .false.
      call check(main_job_fields(vct_a, theta_ref_mc(:, :, 1), wgtfac_c(:, :, 1), e_bln_c_s, &
          geofac_div, geofac_grg_x, geofac_grg_y, geofac_n2s, nudgecoeff_e, rbf_coeff_1, &
          rbf_coeff_2, mask_hdiff(:, :, 1), zd_diffcoef(:, :, 1), zd_vertoffset(:, :, :, 1), &
          zd_intcoef(:, :, :, 1), vn(:, :, 1), w(:, :, 1), theta_v(:, :, 1), exner(:, :, 1)), &
          'main_job_fields')
    else
      call check(main_job_fields(vct_a, theta_ref_mc(:, :, 1), wgtfac_c(:, :, 1), e_bln_c_s, &
          geofac_div, geofac_grg_x, geofac_grg_y, geofac_n2s, nudgecoeff_e, rbf_coeff_1, &
          rbf_coeff_2, vn=vn(:, :, 1), w=w(:, :, 1), theta_v=theta_v(:, :, 1), &
          exner=exner(:, :, 1)), 'main_job_fields')
    end if
  end subroutine load_main_job

  ! ICON's default diffusion_nml, as the main job runs it.
  function granule_config() result(status)
    integer(c_int) :: status
    if (steep) then
      status = diffusion_init(vct_a, damping_height, theta_ref_mc(:, :, 1), wgtfac_c(:, :, 1), &
          e_bln_c_s, geofac_div, geofac_grg_x, geofac_grg_y, geofac_n2s, nudgecoeff_e, &
          rbf_coeff_1, rbf_coeff_2, mask_hdiff(:, :, 1), zd_diffcoef(:, :, 1), &
          zd_vertoffset(:, :, :, 1), zd_intcoef(:, :, :, 1), &
          ndyn_substeps=5_c_int32_t, diffusion_type=5_c_int32_t, hdiff_w=.true., &
          hdiff_vn=.true., hdiff_temp=.true., zdiffu_t=.true., type_t_diffu=2_c_int32_t, &
          type_vn_diffu=1_c_int32_t, hdiff_efdt_ratio=36.0_c_double, &
          hdiff_w_efdt_ratio=15.0_c_double, smagorinski_scaling_factor=0.015_c_double, &
          thslp_zdiffu=0.025_c_double, thhgtd_zdiffu=200.0_c_double, &
          denom_diffu_v=200.0_c_double, denom_diffu_t=135.0_c_double, &
          nudge_max_coeff=0.02_c_double, nudge_efold_width=2.0_c_double, &
          itype_sher=0_c_int32_t, lhdiff_rcf=.true., physics_forcing=.false., &
          limited_area=limited_area, backend=GT4RS_BACKEND_CPU)
    else
      status = diffusion_init(vct_a, damping_height, theta_ref_mc(:, :, 1), wgtfac_c(:, :, 1), &
          e_bln_c_s, geofac_div, geofac_grg_x, geofac_grg_y, geofac_n2s, nudgecoeff_e, &
          rbf_coeff_1, rbf_coeff_2, &
          ndyn_substeps=5_c_int32_t, diffusion_type=5_c_int32_t, hdiff_w=.true., &
          hdiff_vn=.true., hdiff_temp=.true., zdiffu_t=.true., type_t_diffu=2_c_int32_t, &
          type_vn_diffu=1_c_int32_t, hdiff_efdt_ratio=36.0_c_double, &
          hdiff_w_efdt_ratio=15.0_c_double, smagorinski_scaling_factor=0.015_c_double, &
          thslp_zdiffu=0.025_c_double, thhgtd_zdiffu=200.0_c_double, &
          denom_diffu_v=200.0_c_double, denom_diffu_t=135.0_c_double, &
          nudge_max_coeff=0.02_c_double, nudge_efold_width=2.0_c_double, &
          itype_sher=0_c_int32_t, lhdiff_rcf=.true., physics_forcing=.false., &
          limited_area=limited_area, backend=GT4RS_BACKEND_CPU)
    end if
  end function granule_config

  ! grid_init and diffusion_init, as ICON calls them.
  subroutine init_granule()
    call check(grid_init(c2e_idx, c2e_blk, e2c_idx, e2c_blk, c2e2c_idx, c2e2c_blk, v2e_idx, &
        v2e_blk, e2c2v_idx, e2c2v_blk, cell_start, cell_end, edge_start, edge_end, &
        vertex_start, vertex_end, tangent_orientation, inv_primal_edge_length, &
        inv_dual_edge_length, inv_vert_vert_length, area_edge, primal_normal_vert_x, &
        primal_normal_vert_y, dual_normal_vert_x, dual_normal_vert_y, cell_area, &
        int(nc, c_int32_t), int(ne, c_int32_t), int(nv, c_int32_t)), 'grid_init')
    call check(granule_config(), 'diffusion_init')
  end subroutine init_granule
end module main_job_arrays
