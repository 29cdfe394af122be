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
	X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 75)                \
	X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 76)

/* Flags and query results used as plain numbers. */
#define MMART_CU_MISC_LIST(X)                                              \
	X(CU_GET_PROC_ADDRESS_DEFAULT, 0)                                  \
	X(CU_GET_PROC_ADDRESS_SUCCESS, 0)                                  \
	X(CU_EVENT_DEFAULT, 0)

#endif
