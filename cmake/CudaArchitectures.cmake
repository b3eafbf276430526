# Pick the GPU architectures to compile for.
#  - A user or preset choice (-DCMAKE_CUDA_ARCHITECTURES=...) always wins.
#  - With a GPU visible (nvidia-smi lists one), build for exactly that GPU ("native").
#  - Otherwise (build-only machines, CI) a fixed list of real architectures from Turing to Hopper,
#    plus compute_90 PTX so newer GPUs can JIT the kernels.
if(DEFINED CMAKE_CUDA_ARCHITECTURES OR DEFINED ENV{CUDAARCHS})
  return()
endif()

set(_tilelab_gpu_visible FALSE)
find_program(_tilelab_nvidia_smi nvidia-smi)
if(_tilelab_nvidia_smi)
  execute_process(COMMAND ${_tilelab_nvidia_smi} -L
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_QUIET TIMEOUT 20)
  if(_rc EQUAL 0 AND _out MATCHES "GPU [0-9]+:")
    set(_tilelab_gpu_visible TRUE)
  endif()
endif()

if(_tilelab_gpu_visible)
  set(CMAKE_CUDA_ARCHITECTURES native CACHE STRING "CUDA architectures (a GPU is visible)")
  message(STATUS "tilelab: GPU visible, CUDA architectures = native")
else()
  set(CMAKE_CUDA_ARCHITECTURES "75-real;80-real;86-real;89-real;90-real;90-virtual"
      CACHE STRING "CUDA architectures (no GPU visible)")
  message(STATUS "tilelab: no GPU visible, CUDA architectures = ${CMAKE_CUDA_ARCHITECTURES}")
endif()
