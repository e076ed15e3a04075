# spec.mk - generated from spec/ftpu.toml by spec/gen.py - do not edit.
# Every device configuration of the spec: SPEC_<config>_PARAMS (name=value,
# as board.mk and the synthesis scripts take them), _VFLAGS (Verilator
# -G list), _DEFINES (the same as -DFTPU_DEV_* for shims and tests),
# _ROW_DELAY; SPEC_ROW_DELAY_<cuts> for the lanes and array models.

SPEC_DEVICES := default device_16 device_4p device_2s control icebreaker tangnano20k ulx3s ulx3s_45f ulx3s_25f arty litefury
SPEC_default_PARAMS := N=16 AddCuts=0 InFlight=4 UbVectors=16384 WmRows=16384 AccVectors=65536 BiasVectors=256 IqWords=8192 ClockHz=100000000 VectorUnit=1 LinkBytes=4 InOrder=0 ActLanes=0 ColSkew=1 PipeRegs=0
SPEC_default_VFLAGS := -GN=16 -GAddCuts=0 -GInFlight=4 -GUbVectors=16384 -GWmRows=16384 -GAccVectors=65536 -GBiasVectors=256 -GIqWords=8192 -GClockHz=100000000 -GVectorUnit=1 -GLinkBytes=4 -GInOrder=0 -GActLanes=0 -GColSkew=1 -GPipeRegs=0
SPEC_default_DEFINES := -DFTPU_DEV_N=16 -DFTPU_DEV_ADD_CUTS=0 -DFTPU_DEV_IN_FLIGHT=4 -DFTPU_DEV_UB_VECTORS=16384 -DFTPU_DEV_WM_ROWS=16384 -DFTPU_DEV_ACC_VECTORS=65536 -DFTPU_DEV_BIAS_VECTORS=256 -DFTPU_DEV_IQ_WORDS=8192 -DFTPU_DEV_CLOCK_HZ=100000000 -DFTPU_DEV_VECTOR_UNIT=1 -DFTPU_DEV_LINK_BYTES=4 -DFTPU_DEV_IN_ORDER=0 -DFTPU_DEV_ACT_LANES=0 -DFTPU_DEV_COL_SKEW=1 -DFTPU_DEV_PIPE_REGS=0 -DFTPU_DEV_ROW_DELAY=1 -DFTPU_DEV_WEIGHT_TILES=1024
SPEC_default_ROW_DELAY := 1
SPEC_default_N := 16
SPEC_default_AddCuts := 0
SPEC_default_InFlight := 4
SPEC_default_UbVectors := 16384
SPEC_default_WmRows := 16384
SPEC_default_AccVectors := 65536
SPEC_default_BiasVectors := 256
SPEC_default_IqWords := 8192
SPEC_default_ClockHz := 100000000
SPEC_default_VectorUnit := 1
SPEC_default_LinkBytes := 4
SPEC_default_InOrder := 0
SPEC_default_ActLanes := 0
SPEC_default_ColSkew := 1
SPEC_default_PipeRegs := 0
SPEC_default_RowDelay := 1
SPEC_default_WeightTiles := 1024
SPEC_device_16_PARAMS := N=16 AddCuts=0 InFlight=4 UbVectors=16384 WmRows=16384 AccVectors=65536 BiasVectors=256 IqWords=8192 ClockHz=100000000 VectorUnit=1 LinkBytes=4 InOrder=0 ActLanes=0 ColSkew=1 PipeRegs=0
SPEC_device_16_VFLAGS := -GN=16 -GAddCuts=0 -GInFlight=4 -GUbVectors=16384 -GWmRows=16384 -GAccVectors=65536 -GBiasVectors=256 -GIqWords=8192 -GClockHz=100000000 -GVectorUnit=1 -GLinkBytes=4 -GInOrder=0 -GActLanes=0 -GColSkew=1 -GPipeRegs=0
SPEC_device_16_DEFINES := -DFTPU_DEV_N=16 -DFTPU_DEV_ADD_CUTS=0 -DFTPU_DEV_IN_FLIGHT=4 -DFTPU_DEV_UB_VECTORS=16384 -DFTPU_DEV_WM_ROWS=16384 -DFTPU_DEV_ACC_VECTORS=65536 -DFTPU_DEV_BIAS_VECTORS=256 -DFTPU_DEV_IQ_WORDS=8192 -DFTPU_DEV_CLOCK_HZ=100000000 -DFTPU_DEV_VECTOR_UNIT=1 -DFTPU_DEV_LINK_BYTES=4 -DFTPU_DEV_IN_ORDER=0 -DFTPU_DEV_ACT_LANES=0 -DFTPU_DEV_COL_SKEW=1 -DFTPU_DEV_PIPE_REGS=0 -DFTPU_DEV_ROW_DELAY=1 -DFTPU_DEV_WEIGHT_TILES=1024
SPEC_device_16_ROW_DELAY := 1
SPEC_device_16_N := 16
SPEC_device_16_AddCuts := 0
SPEC_device_16_InFlight := 4
SPEC_device_16_UbVectors := 16384
SPEC_device_16_WmRows := 16384
SPEC_device_16_AccVectors := 65536
SPEC_device_16_BiasVectors := 256
SPEC_device_16_IqWords := 8192
SPEC_device_16_ClockHz := 100000000
SPEC_device_16_VectorUnit := 1
SPEC_device_16_LinkBytes := 4
SPEC_device_16_InOrder := 0
SPEC_device_16_ActLanes := 0
SPEC_device_16_ColSkew := 1
SPEC_device_16_PipeRegs := 0
SPEC_device_16_RowDelay := 1
SPEC_device_16_WeightTiles := 1024
SPEC_device_4p_PARAMS := N=4 AddCuts=7 InFlight=8 UbVectors=256 WmRows=256 AccVectors=256 BiasVectors=16 IqWords=8192 ClockHz=100000000 VectorUnit=1 LinkBytes=4 InOrder=0 ActLanes=0 ColSkew=0 PipeRegs=1
SPEC_device_4p_VFLAGS := -GN=4 -GAddCuts=7 -GInFlight=8 -GUbVectors=256 -GWmRows=256 -GAccVectors=256 -GBiasVectors=16 -GIqWords=8192 -GClockHz=100000000 -GVectorUnit=1 -GLinkBytes=4 -GInOrder=0 -GActLanes=0 -GColSkew=0 -GPipeRegs=1
SPEC_device_4p_DEFINES := -DFTPU_DEV_N=4 -DFTPU_DEV_ADD_CUTS=7 -DFTPU_DEV_IN_FLIGHT=8 -DFTPU_DEV_UB_VECTORS=256 -DFTPU_DEV_WM_ROWS=256 -DFTPU_DEV_ACC_VECTORS=256 -DFTPU_DEV_BIAS_VECTORS=16 -DFTPU_DEV_IQ_WORDS=8192 -DFTPU_DEV_CLOCK_HZ=100000000 -DFTPU_DEV_VECTOR_UNIT=1 -DFTPU_DEV_LINK_BYTES=4 -DFTPU_DEV_IN_ORDER=0 -DFTPU_DEV_ACT_LANES=0 -DFTPU_DEV_COL_SKEW=0 -DFTPU_DEV_PIPE_REGS=1 -DFTPU_DEV_ROW_DELAY=4 -DFTPU_DEV_WEIGHT_TILES=64
SPEC_device_4p_ROW_DELAY := 4
SPEC_device_4p_N := 4
SPEC_device_4p_AddCuts := 7
SPEC_device_4p_InFlight := 8
SPEC_device_4p_UbVectors := 256
SPEC_device_4p_WmRows := 256
SPEC_device_4p_AccVectors := 256
SPEC_device_4p_BiasVectors := 16
SPEC_device_4p_IqWords := 8192
SPEC_device_4p_ClockHz := 100000000
SPEC_device_4p_VectorUnit := 1
SPEC_device_4p_LinkBytes := 4
SPEC_device_4p_InOrder := 0
SPEC_device_4p_ActLanes := 0
SPEC_device_4p_ColSkew := 0
SPEC_device_4p_PipeRegs := 1
SPEC_device_4p_RowDelay := 4
SPEC_device_4p_WeightTiles := 64
SPEC_device_2s_PARAMS := N=2 AddCuts=7 InFlight=8 UbVectors=512 WmRows=512 AccVectors=256 BiasVectors=16 IqWords=8192 ClockHz=100000000 VectorUnit=0 LinkBytes=1 InOrder=1 ActLanes=1 ColSkew=0 PipeRegs=0 Baud=3000000
SPEC_device_2s_VFLAGS := -GN=2 -GAddCuts=7 -GInFlight=8 -GUbVectors=512 -GWmRows=512 -GAccVectors=256 -GBiasVectors=16 -GIqWords=8192 -GClockHz=100000000 -GVectorUnit=0 -GLinkBytes=1 -GInOrder=1 -GActLanes=1 -GColSkew=0 -GPipeRegs=0 -GBaud=3000000
SPEC_device_2s_DEFINES := -DFTPU_DEV_N=2 -DFTPU_DEV_ADD_CUTS=7 -DFTPU_DEV_IN_FLIGHT=8 -DFTPU_DEV_UB_VECTORS=512 -DFTPU_DEV_WM_ROWS=512 -DFTPU_DEV_ACC_VECTORS=256 -DFTPU_DEV_BIAS_VECTORS=16 -DFTPU_DEV_IQ_WORDS=8192 -DFTPU_DEV_CLOCK_HZ=100000000 -DFTPU_DEV_VECTOR_UNIT=0 -DFTPU_DEV_LINK_BYTES=1 -DFTPU_DEV_IN_ORDER=1 -DFTPU_DEV_ACT_LANES=1 -DFTPU_DEV_COL_SKEW=0 -DFTPU_DEV_PIPE_REGS=0 -DFTPU_DEV_BAUD=3000000 -DFTPU_DEV_ROW_DELAY=4 -DFTPU_DEV_WEIGHT_TILES=256
SPEC_device_2s_ROW_DELAY := 4
SPEC_device_2s_N := 2
SPEC_device_2s_AddCuts := 7
SPEC_device_2s_InFlight := 8
SPEC_device_2s_UbVectors := 512
SPEC_device_2s_WmRows := 512
SPEC_device_2s_AccVectors := 256
SPEC_device_2s_BiasVectors := 16
SPEC_device_2s_IqWords := 8192
SPEC_device_2s_ClockHz := 100000000
SPEC_device_2s_VectorUnit := 0
SPEC_device_2s_LinkBytes := 1
SPEC_device_2s_InOrder := 1
SPEC_device_2s_ActLanes := 1
SPEC_device_2s_ColSkew := 0
SPEC_device_2s_PipeRegs := 0
SPEC_device_2s_Baud := 3000000
SPEC_device_2s_RowDelay := 4
SPEC_device_2s_WeightTiles := 256
SPEC_control_PARAMS := N=8 AddCuts=3 InFlight=4 UbVectors=1000 WmRows=2400 AccVectors=700 BiasVectors=50 IqWords=5000 ClockHz=123456789 VectorUnit=1 LinkBytes=4 InOrder=0 ActLanes=0 ColSkew=1 PipeRegs=0
SPEC_control_VFLAGS := -GN=8 -GAddCuts=3 -GInFlight=4 -GUbVectors=1000 -GWmRows=2400 -GAccVectors=700 -GBiasVectors=50 -GIqWords=5000 -GClockHz=123456789 -GVectorUnit=1 -GLinkBytes=4 -GInOrder=0 -GActLanes=0 -GColSkew=1 -GPipeRegs=0
SPEC_control_DEFINES := -DFTPU_DEV_N=8 -DFTPU_DEV_ADD_CUTS=3 -DFTPU_DEV_IN_FLIGHT=4 -DFTPU_DEV_UB_VECTORS=1000 -DFTPU_DEV_WM_ROWS=2400 -DFTPU_DEV_ACC_VECTORS=700 -DFTPU_DEV_BIAS_VECTORS=50 -DFTPU_DEV_IQ_WORDS=5000 -DFTPU_DEV_CLOCK_HZ=123456789 -DFTPU_DEV_VECTOR_UNIT=1 -DFTPU_DEV_LINK_BYTES=4 -DFTPU_DEV_IN_ORDER=0 -DFTPU_DEV_ACT_LANES=0 -DFTPU_DEV_COL_SKEW=1 -DFTPU_DEV_PIPE_REGS=0 -DFTPU_DEV_ROW_DELAY=3 -DFTPU_DEV_WEIGHT_TILES=300
SPEC_control_ROW_DELAY := 3
SPEC_control_N := 8
SPEC_control_AddCuts := 3
SPEC_control_InFlight := 4
SPEC_control_UbVectors := 1000
SPEC_control_WmRows := 2400
SPEC_control_AccVectors := 700
SPEC_control_BiasVectors := 50
SPEC_control_IqWords := 5000
SPEC_control_ClockHz := 123456789
SPEC_control_VectorUnit := 1
SPEC_control_LinkBytes := 4
SPEC_control_InOrder := 0
SPEC_control_ActLanes := 0
SPEC_control_ColSkew := 1
SPEC_control_PipeRegs := 0
SPEC_control_RowDelay := 3
SPEC_control_WeightTiles := 300
SPEC_icebreaker_PARAMS := N=2 AddCuts=7 InFlight=8 UbVectors=512 WmRows=512 AccVectors=256 BiasVectors=16 IqWords=1024 ClockHz=21000000 VectorUnit=0 LinkBytes=1 InOrder=1 ActLanes=1 ColSkew=0 PipeRegs=0 Baud=3000000
SPEC_icebreaker_VFLAGS := -GN=2 -GAddCuts=7 -GInFlight=8 -GUbVectors=512 -GWmRows=512 -GAccVectors=256 -GBiasVectors=16 -GIqWords=1024 -GClockHz=21000000 -GVectorUnit=0 -GLinkBytes=1 -GInOrder=1 -GActLanes=1 -GColSkew=0 -GPipeRegs=0 -GBaud=3000000
SPEC_icebreaker_DEFINES := -DFTPU_DEV_N=2 -DFTPU_DEV_ADD_CUTS=7 -DFTPU_DEV_IN_FLIGHT=8 -DFTPU_DEV_UB_VECTORS=512 -DFTPU_DEV_WM_ROWS=512 -DFTPU_DEV_ACC_VECTORS=256 -DFTPU_DEV_BIAS_VECTORS=16 -DFTPU_DEV_IQ_WORDS=1024 -DFTPU_DEV_CLOCK_HZ=21000000 -DFTPU_DEV_VECTOR_UNIT=0 -DFTPU_DEV_LINK_BYTES=1 -DFTPU_DEV_IN_ORDER=1 -DFTPU_DEV_ACT_LANES=1 -DFTPU_DEV_COL_SKEW=0 -DFTPU_DEV_PIPE_REGS=0 -DFTPU_DEV_BAUD=3000000 -DFTPU_DEV_ROW_DELAY=4 -DFTPU_DEV_WEIGHT_TILES=256
SPEC_icebreaker_ROW_DELAY := 4
SPEC_icebreaker_N := 2
SPEC_icebreaker_AddCuts := 7
SPEC_icebreaker_InFlight := 8
SPEC_icebreaker_UbVectors := 512
SPEC_icebreaker_WmRows := 512
SPEC_icebreaker_AccVectors := 256
SPEC_icebreaker_BiasVectors := 16
SPEC_icebreaker_IqWords := 1024
SPEC_icebreaker_ClockHz := 21000000
SPEC_icebreaker_VectorUnit := 0
SPEC_icebreaker_LinkBytes := 1
SPEC_icebreaker_InOrder := 1
SPEC_icebreaker_ActLanes := 1
SPEC_icebreaker_ColSkew := 0
SPEC_icebreaker_PipeRegs := 0
SPEC_icebreaker_Baud := 3000000
SPEC_icebreaker_RowDelay := 4
SPEC_icebreaker_WeightTiles := 256
SPEC_tangnano20k_PARAMS := N=4 AddCuts=2 InFlight=4 UbVectors=512 WmRows=512 AccVectors=256 BiasVectors=16 IqWords=1024 ClockHz=27000000 VectorUnit=0 LinkBytes=1 InOrder=1 ActLanes=1 ColSkew=0 PipeRegs=0 Baud=3000000
SPEC_tangnano20k_VFLAGS := -GN=4 -GAddCuts=2 -GInFlight=4 -GUbVectors=512 -GWmRows=512 -GAccVectors=256 -GBiasVectors=16 -GIqWords=1024 -GClockHz=27000000 -GVectorUnit=0 -GLinkBytes=1 -GInOrder=1 -GActLanes=1 -GColSkew=0 -GPipeRegs=0 -GBaud=3000000
SPEC_tangnano20k_DEFINES := -DFTPU_DEV_N=4 -DFTPU_DEV_ADD_CUTS=2 -DFTPU_DEV_IN_FLIGHT=4 -DFTPU_DEV_UB_VECTORS=512 -DFTPU_DEV_WM_ROWS=512 -DFTPU_DEV_ACC_VECTORS=256 -DFTPU_DEV_BIAS_VECTORS=16 -DFTPU_DEV_IQ_WORDS=1024 -DFTPU_DEV_CLOCK_HZ=27000000 -DFTPU_DEV_VECTOR_UNIT=0 -DFTPU_DEV_LINK_BYTES=1 -DFTPU_DEV_IN_ORDER=1 -DFTPU_DEV_ACT_LANES=1 -DFTPU_DEV_COL_SKEW=0 -DFTPU_DEV_PIPE_REGS=0 -DFTPU_DEV_BAUD=3000000 -DFTPU_DEV_ROW_DELAY=2 -DFTPU_DEV_WEIGHT_TILES=128
SPEC_tangnano20k_ROW_DELAY := 2
SPEC_tangnano20k_N := 4
SPEC_tangnano20k_AddCuts := 2
SPEC_tangnano20k_InFlight := 4
SPEC_tangnano20k_UbVectors := 512
SPEC_tangnano20k_WmRows := 512
SPEC_tangnano20k_AccVectors := 256
SPEC_tangnano20k_BiasVectors := 16
SPEC_tangnano20k_IqWords := 1024
SPEC_tangnano20k_ClockHz := 27000000
SPEC_tangnano20k_VectorUnit := 0
SPEC_tangnano20k_LinkBytes := 1
SPEC_tangnano20k_InOrder := 1
SPEC_tangnano20k_ActLanes := 1
SPEC_tangnano20k_ColSkew := 0
SPEC_tangnano20k_PipeRegs := 0
SPEC_tangnano20k_Baud := 3000000
SPEC_tangnano20k_RowDelay := 2
SPEC_tangnano20k_WeightTiles := 128
SPEC_ulx3s_PARAMS := N=8 AddCuts=7 InFlight=8 UbVectors=4096 WmRows=8192 AccVectors=4096 BiasVectors=256 IqWords=8192 ClockHz=50000000 VectorUnit=0 LinkBytes=1 InOrder=0 ActLanes=0 ColSkew=1 PipeRegs=1 Baud=3000000
SPEC_ulx3s_VFLAGS := -GN=8 -GAddCuts=7 -GInFlight=8 -GUbVectors=4096 -GWmRows=8192 -GAccVectors=4096 -GBiasVectors=256 -GIqWords=8192 -GClockHz=50000000 -GVectorUnit=0 -GLinkBytes=1 -GInOrder=0 -GActLanes=0 -GColSkew=1 -GPipeRegs=1 -GBaud=3000000
SPEC_ulx3s_DEFINES := -DFTPU_DEV_N=8 -DFTPU_DEV_ADD_CUTS=7 -DFTPU_DEV_IN_FLIGHT=8 -DFTPU_DEV_UB_VECTORS=4096 -DFTPU_DEV_WM_ROWS=8192 -DFTPU_DEV_ACC_VECTORS=4096 -DFTPU_DEV_BIAS_VECTORS=256 -DFTPU_DEV_IQ_WORDS=8192 -DFTPU_DEV_CLOCK_HZ=50000000 -DFTPU_DEV_VECTOR_UNIT=0 -DFTPU_DEV_LINK_BYTES=1 -DFTPU_DEV_IN_ORDER=0 -DFTPU_DEV_ACT_LANES=0 -DFTPU_DEV_COL_SKEW=1 -DFTPU_DEV_PIPE_REGS=1 -DFTPU_DEV_BAUD=3000000 -DFTPU_DEV_ROW_DELAY=4 -DFTPU_DEV_WEIGHT_TILES=1024
SPEC_ulx3s_ROW_DELAY := 4
SPEC_ulx3s_N := 8
SPEC_ulx3s_AddCuts := 7
SPEC_ulx3s_InFlight := 8
SPEC_ulx3s_UbVectors := 4096
SPEC_ulx3s_WmRows := 8192
SPEC_ulx3s_AccVectors := 4096
SPEC_ulx3s_BiasVectors := 256
SPEC_ulx3s_IqWords := 8192
SPEC_ulx3s_ClockHz := 50000000
SPEC_ulx3s_VectorUnit := 0
SPEC_ulx3s_LinkBytes := 1
SPEC_ulx3s_InOrder := 0
SPEC_ulx3s_ActLanes := 0
SPEC_ulx3s_ColSkew := 1
SPEC_ulx3s_PipeRegs := 1
SPEC_ulx3s_Baud := 3000000
SPEC_ulx3s_RowDelay := 4
SPEC_ulx3s_WeightTiles := 1024
SPEC_ulx3s_45f_PARAMS := N=4 AddCuts=7 InFlight=8 UbVectors=4096 WmRows=4096 AccVectors=4096 BiasVectors=256 IqWords=8192 ClockHz=50000000 VectorUnit=0 LinkBytes=1 InOrder=0 ActLanes=0 ColSkew=1 PipeRegs=1 Baud=3000000
SPEC_ulx3s_45f_VFLAGS := -GN=4 -GAddCuts=7 -GInFlight=8 -GUbVectors=4096 -GWmRows=4096 -GAccVectors=4096 -GBiasVectors=256 -GIqWords=8192 -GClockHz=50000000 -GVectorUnit=0 -GLinkBytes=1 -GInOrder=0 -GActLanes=0 -GColSkew=1 -GPipeRegs=1 -GBaud=3000000
SPEC_ulx3s_45f_DEFINES := -DFTPU_DEV_N=4 -DFTPU_DEV_ADD_CUTS=7 -DFTPU_DEV_IN_FLIGHT=8 -DFTPU_DEV_UB_VECTORS=4096 -DFTPU_DEV_WM_ROWS=4096 -DFTPU_DEV_ACC_VECTORS=4096 -DFTPU_DEV_BIAS_VECTORS=256 -DFTPU_DEV_IQ_WORDS=8192 -DFTPU_DEV_CLOCK_HZ=50000000 -DFTPU_DEV_VECTOR_UNIT=0 -DFTPU_DEV_LINK_BYTES=1 -DFTPU_DEV_IN_ORDER=0 -DFTPU_DEV_ACT_LANES=0 -DFTPU_DEV_COL_SKEW=1 -DFTPU_DEV_PIPE_REGS=1 -DFTPU_DEV_BAUD=3000000 -DFTPU_DEV_ROW_DELAY=4 -DFTPU_DEV_WEIGHT_TILES=1024
SPEC_ulx3s_45f_ROW_DELAY := 4
SPEC_ulx3s_45f_N := 4
SPEC_ulx3s_45f_AddCuts := 7
SPEC_ulx3s_45f_InFlight := 8
SPEC_ulx3s_45f_UbVectors := 4096
SPEC_ulx3s_45f_WmRows := 4096
SPEC_ulx3s_45f_AccVectors := 4096
SPEC_ulx3s_45f_BiasVectors := 256
SPEC_ulx3s_45f_IqWords := 8192
SPEC_ulx3s_45f_ClockHz := 50000000
SPEC_ulx3s_45f_VectorUnit := 0
SPEC_ulx3s_45f_LinkBytes := 1
SPEC_ulx3s_45f_InOrder := 0
SPEC_ulx3s_45f_ActLanes := 0
SPEC_ulx3s_45f_ColSkew := 1
SPEC_ulx3s_45f_PipeRegs := 1
SPEC_ulx3s_45f_Baud := 3000000
SPEC_ulx3s_45f_RowDelay := 4
SPEC_ulx3s_45f_WeightTiles := 1024
SPEC_ulx3s_25f_PARAMS := N=2 AddCuts=7 InFlight=8 UbVectors=512 WmRows=512 AccVectors=256 BiasVectors=16 IqWords=1024 ClockHz=50000000 VectorUnit=0 LinkBytes=1 InOrder=1 ActLanes=1 ColSkew=0 PipeRegs=0 Baud=3000000
SPEC_ulx3s_25f_VFLAGS := -GN=2 -GAddCuts=7 -GInFlight=8 -GUbVectors=512 -GWmRows=512 -GAccVectors=256 -GBiasVectors=16 -GIqWords=1024 -GClockHz=50000000 -GVectorUnit=0 -GLinkBytes=1 -GInOrder=1 -GActLanes=1 -GColSkew=0 -GPipeRegs=0 -GBaud=3000000
SPEC_ulx3s_25f_DEFINES := -DFTPU_DEV_N=2 -DFTPU_DEV_ADD_CUTS=7 -DFTPU_DEV_IN_FLIGHT=8 -DFTPU_DEV_UB_VECTORS=512 -DFTPU_DEV_WM_ROWS=512 -DFTPU_DEV_ACC_VECTORS=256 -DFTPU_DEV_BIAS_VECTORS=16 -DFTPU_DEV_IQ_WORDS=1024 -DFTPU_DEV_CLOCK_HZ=50000000 -DFTPU_DEV_VECTOR_UNIT=0 -DFTPU_DEV_LINK_BYTES=1 -DFTPU_DEV_IN_ORDER=1 -DFTPU_DEV_ACT_LANES=1 -DFTPU_DEV_COL_SKEW=0 -DFTPU_DEV_PIPE_REGS=0 -DFTPU_DEV_BAUD=3000000 -DFTPU_DEV_ROW_DELAY=4 -DFTPU_DEV_WEIGHT_TILES=256
SPEC_ulx3s_25f_ROW_DELAY := 4
SPEC_ulx3s_25f_N := 2
SPEC_ulx3s_25f_AddCuts := 7
SPEC_ulx3s_25f_InFlight := 8
SPEC_ulx3s_25f_UbVectors := 512
SPEC_ulx3s_25f_WmRows := 512
SPEC_ulx3s_25f_AccVectors := 256
SPEC_ulx3s_25f_BiasVectors := 16
SPEC_ulx3s_25f_IqWords := 1024
SPEC_ulx3s_25f_ClockHz := 50000000
SPEC_ulx3s_25f_VectorUnit := 0
SPEC_ulx3s_25f_LinkBytes := 1
SPEC_ulx3s_25f_InOrder := 1
SPEC_ulx3s_25f_ActLanes := 1
SPEC_ulx3s_25f_ColSkew := 0
SPEC_ulx3s_25f_PipeRegs := 0
SPEC_ulx3s_25f_Baud := 3000000
SPEC_ulx3s_25f_RowDelay := 4
SPEC_ulx3s_25f_WeightTiles := 256
SPEC_arty_PARAMS := N=6 AddCuts=7 InFlight=8 UbVectors=4096 WmRows=8192 AccVectors=4096 BiasVectors=256 IqWords=8192 ClockHz=100000000 VectorUnit=0 LinkBytes=1 InOrder=0 ActLanes=0 ColSkew=1 PipeRegs=1 Baud=12000000
SPEC_arty_VFLAGS := -GN=6 -GAddCuts=7 -GInFlight=8 -GUbVectors=4096 -GWmRows=8192 -GAccVectors=4096 -GBiasVectors=256 -GIqWords=8192 -GClockHz=100000000 -GVectorUnit=0 -GLinkBytes=1 -GInOrder=0 -GActLanes=0 -GColSkew=1 -GPipeRegs=1 -GBaud=12000000
SPEC_arty_DEFINES := -DFTPU_DEV_N=6 -DFTPU_DEV_ADD_CUTS=7 -DFTPU_DEV_IN_FLIGHT=8 -DFTPU_DEV_UB_VECTORS=4096 -DFTPU_DEV_WM_ROWS=8192 -DFTPU_DEV_ACC_VECTORS=4096 -DFTPU_DEV_BIAS_VECTORS=256 -DFTPU_DEV_IQ_WORDS=8192 -DFTPU_DEV_CLOCK_HZ=100000000 -DFTPU_DEV_VECTOR_UNIT=0 -DFTPU_DEV_LINK_BYTES=1 -DFTPU_DEV_IN_ORDER=0 -DFTPU_DEV_ACT_LANES=0 -DFTPU_DEV_COL_SKEW=1 -DFTPU_DEV_PIPE_REGS=1 -DFTPU_DEV_BAUD=12000000 -DFTPU_DEV_ROW_DELAY=4 -DFTPU_DEV_WEIGHT_TILES=1365
SPEC_arty_ROW_DELAY := 4
SPEC_arty_N := 6
SPEC_arty_AddCuts := 7
SPEC_arty_InFlight := 8
SPEC_arty_UbVectors := 4096
SPEC_arty_WmRows := 8192
SPEC_arty_AccVectors := 4096
SPEC_arty_BiasVectors := 256
SPEC_arty_IqWords := 8192
SPEC_arty_ClockHz := 100000000
SPEC_arty_VectorUnit := 0
SPEC_arty_LinkBytes := 1
SPEC_arty_InOrder := 0
SPEC_arty_ActLanes := 0
SPEC_arty_ColSkew := 1
SPEC_arty_PipeRegs := 1
SPEC_arty_Baud := 12000000
SPEC_arty_RowDelay := 4
SPEC_arty_WeightTiles := 1365
SPEC_litefury_PARAMS := N=6 AddCuts=7 InFlight=8 UbVectors=4096 WmRows=8192 AccVectors=4096 BiasVectors=256 IqWords=8192 ClockHz=125000000 VectorUnit=0 LinkBytes=1 InOrder=0 ActLanes=0 ColSkew=1 PipeRegs=0
SPEC_litefury_VFLAGS := -GN=6 -GAddCuts=7 -GInFlight=8 -GUbVectors=4096 -GWmRows=8192 -GAccVectors=4096 -GBiasVectors=256 -GIqWords=8192 -GClockHz=125000000 -GVectorUnit=0 -GLinkBytes=1 -GInOrder=0 -GActLanes=0 -GColSkew=1 -GPipeRegs=0
SPEC_litefury_DEFINES := -DFTPU_DEV_N=6 -DFTPU_DEV_ADD_CUTS=7 -DFTPU_DEV_IN_FLIGHT=8 -DFTPU_DEV_UB_VECTORS=4096 -DFTPU_DEV_WM_ROWS=8192 -DFTPU_DEV_ACC_VECTORS=4096 -DFTPU_DEV_BIAS_VECTORS=256 -DFTPU_DEV_IQ_WORDS=8192 -DFTPU_DEV_CLOCK_HZ=125000000 -DFTPU_DEV_VECTOR_UNIT=0 -DFTPU_DEV_LINK_BYTES=1 -DFTPU_DEV_IN_ORDER=0 -DFTPU_DEV_ACT_LANES=0 -DFTPU_DEV_COL_SKEW=1 -DFTPU_DEV_PIPE_REGS=0 -DFTPU_DEV_ROW_DELAY=4 -DFTPU_DEV_WEIGHT_TILES=1365
SPEC_litefury_ROW_DELAY := 4
SPEC_litefury_N := 6
SPEC_litefury_AddCuts := 7
SPEC_litefury_InFlight := 8
SPEC_litefury_UbVectors := 4096
SPEC_litefury_WmRows := 8192
SPEC_litefury_AccVectors := 4096
SPEC_litefury_BiasVectors := 256
SPEC_litefury_IqWords := 8192
SPEC_litefury_ClockHz := 125000000
SPEC_litefury_VectorUnit := 0
SPEC_litefury_LinkBytes := 1
SPEC_litefury_InOrder := 0
SPEC_litefury_ActLanes := 0
SPEC_litefury_ColSkew := 1
SPEC_litefury_PipeRegs := 0
SPEC_litefury_RowDelay := 4
SPEC_litefury_WeightTiles := 1365
SPEC_ROW_DELAY_0 := 1
SPEC_ROW_DELAY_1 := 2
SPEC_ROW_DELAY_2 := 2
SPEC_ROW_DELAY_3 := 3
SPEC_ROW_DELAY_4 := 2
SPEC_ROW_DELAY_5 := 3
SPEC_ROW_DELAY_6 := 3
SPEC_ROW_DELAY_7 := 4
SPEC_MAX_PAYLOAD := 4096
# $(call spec_param,<config>,<Param>): one value, e.g. $(call spec_param,control,N)
spec_param = $(SPEC_$(1)_$(2))
