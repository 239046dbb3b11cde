// A C ABI over DDNet's own demo chunk codec, for `benches/ddnet_cpp.rs`: the Huffman coder
// `CHuffman` (src/engine/shared/huffman.cpp) and the variable int `CVariableInt`
// (src/engine/shared/compression.cpp), compiled by `build.rs` from the DDNet checkout that
// `DDNET_SRC` names. This file is demokit's; DDNet's headers are included from that checkout
// at build time and nothing of DDNet's is copied here.
//
// The functions keep DDNet's own signatures (sizes in bytes, negative results on failure),
// so that the benchmark measures DDNet's code and nothing of ours in between.

#include <base/dbg.h>
#include <engine/shared/compression.h>
#include <engine/shared/huffman.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <new>

// The one function of DDNet's base library that the two files need outside its headers
// (`dbg_assert` failures; `mem_zero` is inline in base/mem.h). Compiling base/system.cpp
// instead would pull in most of DDNet's platform layer for this.
extern "C" void dbg_assert_imp(const char *filename, int line, const char *fmt, ...)
{
	std::fprintf(stderr, "DDNet assertion failed at %s:%d: ", filename, line);
	va_list args;
	va_start(args, fmt);
	std::vfprintf(stderr, fmt, args);
	va_end(args);
	std::fputc('\n', stderr);
	std::abort();
}

extern "C" {

// A coder ready to use (`CHuffman::Init` builds its tree and decode table), or null if the
// allocation failed. Free it with `ddnet_huffman_free`. On the heap because it is about
// 16 KB and Rust holds it by pointer only.
CHuffman *ddnet_huffman_new()
{
	CHuffman *pHuffman = new(std::nothrow) CHuffman;
	if(pHuffman)
		pHuffman->Init();
	return pHuffman;
}

void ddnet_huffman_free(CHuffman *pHuffman)
{
	delete pHuffman;
}

// `CHuffman::Compress`: the compressed size, or negative if `OutputSize` is too small.
int ddnet_huffman_compress(const CHuffman *pHuffman, const void *pInput, int InputSize, void *pOutput, int OutputSize)
{
	return pHuffman->Compress(pInput, InputSize, pOutput, OutputSize);
}

// `CHuffman::Decompress`: the decompressed size, or negative on a malformed stream or a
// too small `OutputSize`.
int ddnet_huffman_decompress(const CHuffman *pHuffman, const void *pInput, int InputSize, void *pOutput, int OutputSize)
{
	return pHuffman->Decompress(pInput, InputSize, pOutput, OutputSize);
}

// `CVariableInt::Compress`: packs `SrcSize / 4` ints; the packed size, or negative.
long ddnet_varint_compress(const void *pSrc, int SrcSize, void *pDst, int DstSize)
{
	return CVariableInt::Compress(pSrc, SrcSize, pDst, DstSize);
}

// `CVariableInt::Decompress`: unpacks into ints; their size in bytes, or negative.
long ddnet_varint_decompress(const void *pSrc, int SrcSize, void *pDst, int DstSize)
{
	return CVariableInt::Decompress(pSrc, SrcSize, pDst, DstSize);
}

} // extern "C"
