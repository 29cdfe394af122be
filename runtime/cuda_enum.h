/* cuda_enum.h - the values of the cuda.h constants libmmart uses, as
 * X-macro lists: cuda_abi.h makes enums of them, test_cuda_abi checks each
 * against cuda.h.  X(name, value). */
#ifndef MMART_CUDA_ENUM_H
#define MMART_CUDA_ENUM_H

/* CUresult: the codes the library tells apart; others pass through. */
#define MMART_CU_RESULT_LIST(X)                                            \
	X(CUDA_SUCCESS, 0)                                                 \
	X(CUDA_ERROR_INVALID_VALUE, 1)                                     \
	X(CUDA_ERROR_OUT_OF_MEMORY, 2)                                     \
	X(CUDA_ERROR_NOT_INITIALIZED, 3)                                   \
	X(CUDA_ERROR_STUB_LIBRARY, 34)                                     \
	X(CUDA_ERROR_NO_DEVICE, 100)                                       \
	X(CUDA_ERROR_INVALID_DEVICE, 101)                                  \
	X(CUDA_ERROR_INVALID_IMAGE, 200)                                   \
	X(CUDA_ERROR_NO_BINARY_FOR_GPU, 209)                               \
	X(CUDA_ERROR_INVALID_PTX, 218)                                     \
	X(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, 221)                          \
	X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222)                         \
	X(CUDA_ERROR_JIT_COMPILATION_DISABLED, 223)                        \
	X(CUDA_ERROR_NOT_FOUND, 500)

#define MMART_CU_JIT_OPTION_LIST(X)                                        \
	X(CU_JIT_INFO_LOG_BUFFER, 3)                                       \
	X(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, 4)                            \
	X(CU_JIT_ERROR_LOG_BUFFER, 5)                                      \
	X(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, 6)                           \
	X(CU_JIT_LOG_VERBOSE, 12)

#define MMART_CU_JIT_INPUT_LIST(X)                                         \
	X(CU_JIT_INPUT_CUBIN, 0)                                           \
	X(CU_JIT_INPUT_PTX, 1)

#define MMART_CU_DEVICE_ATTRIBUTE_LIST(X)                                  \
	X(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 8)              \
	X(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 16)                    \
	X(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 33)                              \
	X(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, 34)                           \
	X(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, 50)                           \
	X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 75)                \
	X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 76)                \
	X(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 97)

#define MMART_CU_FUNC_ATTRIBUTE_LIST(X)                                    \
	X(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, 1)                          \
	X(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 8)

#define MMART_CU_LAUNCH_ATTRIBUTE_LIST(X)                                  \
	X(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, 4)

/* The tensor-map enums of cuTensorMapEncodeTiled; mmart.h's MMART_TENSOR_*
 * values equal these (checked in tensormap.c). */
#define MMART_CU_TENSOR_MAP_DATA_TYPE_LIST(X)                              \
	X(CU_TENSOR_MAP_DATA_TYPE_UINT8, 0)                                \
	X(CU_TENSOR_MAP_DATA_TYPE_UINT16, 1)                               \
	X(CU_TENSOR_MAP_DATA_TYPE_UINT32, 2)                               \
	X(CU_TENSOR_MAP_DATA_TYPE_INT32, 3)                                \
	X(CU_TENSOR_MAP_DATA_TYPE_UINT64, 4)                               \
	X(CU_TENSOR_MAP_DATA_TYPE_INT64, 5)                                \
	X(CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 6)                              \
	X(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 7)                              \
	X(CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 8)                              \
	X(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 9)                             \
	X(CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ, 10)                         \
	X(CU_TENSOR_MAP_DATA_TYPE_TFLOAT32, 11)                            \
	X(CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ, 12)

#define MMART_CU_TENSOR_MAP_INTERLEAVE_LIST(X)                             \
	X(CU_TENSOR_MAP_INTERLEAVE_NONE, 0)                                \
	X(CU_TENSOR_MAP_INTERLEAVE_16B, 1)                                 \
	X(CU_TENSOR_MAP_INTERLEAVE_32B, 2)

#define MMART_CU_TENSOR_MAP_SWIZZLE_LIST(X)                                \
	X(CU_TENSOR_MAP_SWIZZLE_NONE, 0)                                   \
	X(CU_TENSOR_MAP_SWIZZLE_32B, 1)                                    \
	X(CU_TENSOR_MAP_SWIZZLE_64B, 2)                                    \
	X(CU_TENSOR_MAP_SWIZZLE_128B, 3)

#define MMART_CU_TENSOR_MAP_L2_PROMOTION_LIST(X)                           \
	X(CU_TENSOR_MAP_L2_PROMOTION_NONE, 0)                              \
	X(CU_TENSOR_MAP_L2_PROMOTION_L2_64B, 1)                            \
	X(CU_TENSOR_MAP_L2_PROMOTION_L2_128B, 2)                           \
	X(CU_TENSOR_MAP_L2_PROMOTION_L2_256B, 3)

#define MMART_CU_TENSOR_MAP_OOB_FILL_LIST(X)                               \
	X(CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, 0)                            \
	X(CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA, 1)

/* Struct layouts declared in cuda_abi.h: X(type, member, offset) and
 * sizes S(type, bytes), on LP64.  cuda_abi.h checks its declarations
 * against these and test_cuda_abi checks cuda.h's. */
#define MMART_CU_LAYOUT_LIST(X, S)                                         \
	X(CUlaunchAttribute, id, 0)                                        \
	X(CUlaunchAttribute, value, 8)                                     \
	S(CUlaunchAttribute, 72)                                           \
	X(CUlaunchConfig, gridDimX, 0)                                     \
	X(CUlaunchConfig, blockDimX, 12)                                   \
	X(CUlaunchConfig, sharedMemBytes, 24)                              \
	X(CUlaunchConfig, hStream, 32)                                     \
	X(CUlaunchConfig, attrs, 40)                                       \
	X(CUlaunchConfig, numAttrs, 48)                                    \
	S(CUlaunchConfig, 56)                                              \
	S(CUtensorMap, 128)                                                \
	X(CUDA_MEMCPY2D, srcY, 8)                                          \
	X(CUDA_MEMCPY2D, srcMemoryType, 16)                                \
	X(CUDA_MEMCPY2D, srcDevice, 32)                                    \
	X(CUDA_MEMCPY2D, srcPitch, 48)                                     \
	X(CUDA_MEMCPY2D, dstMemoryType, 72)                                \
	X(CUDA_MEMCPY2D, dstDevice, 88)                                    \
	X(CUDA_MEMCPY2D, dstPitch, 104)                                    \
	X(CUDA_MEMCPY2D, WidthInBytes, 112)                                \
	X(CUDA_MEMCPY2D, Height, 120)                                      \
	S(CUDA_MEMCPY2D, 128)

/* Flags and query results used as plain numbers. */
#define MMART_CU_MISC_LIST(X)                                              \
	X(CU_GET_PROC_ADDRESS_DEFAULT, 0)                                  \
	X(CU_GET_PROC_ADDRESS_SUCCESS, 0)                                  \
	X(CU_EVENT_DEFAULT, 0)                                             \
	X(CU_STREAM_NON_BLOCKING, 1)                                       \
	X(CU_TENSOR_MAP_NUM_QWORDS, 16)                                    \
	X(CU_MEMORYTYPE_DEVICE, 2)

#endif
