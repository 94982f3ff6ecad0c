//===- ToolingTest.cpp - host tensors: text, .npy, comparison -------------===//
//
// The value syntax of fleet-run's --input/--expected_output
// (runtime/include/fleet/runtime/tooling/Tensor.h), its iree-run-module
// output form, .npy round trips and the comparison with tolerances.
//
//===----------------------------------------------------------------------===//

#include "fleet/runtime/tooling/Tensor.h"

#include "fleet/runtime/hal/Driver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <unistd.h>

using namespace fleet::runtime;
using tooling::HostTensor;
namespace et = hal::element_type;

namespace {

std::vector<float> floats(const HostTensor &tensor) {
  std::vector<float> values(tensor.bytes.size() / 4);
  std::memcpy(values.data(), tensor.bytes.data(), tensor.bytes.size());
  return values;
}

HostTensor parse(std::string_view text) {
  auto tensor = tooling::parseTensor(text);
  EXPECT_TRUE(tensor.ok()) << text << ": " << tensor.status().toString();
  return tensor.ok() ? *tensor : HostTensor();
}

std::string parseError(std::string_view text) {
  auto tensor = tooling::parseTensor(text);
  EXPECT_FALSE(tensor.ok()) << text << " parsed";
  return tensor.ok() ? "" : tensor.status().message();
}

std::string tempPath(const char *name) {
  return std::string(::testing::TempDir()) + "fleet_tooling_" +
         std::to_string(::getpid()) + "_" + name;
}

TEST(TensorTextTest, SeparatorsBracketsAndSplat) {
  HostTensor commas = parse("4xf32=1,2,3,4");
  EXPECT_EQ(commas.shape, (std::vector<int64_t>{4}));
  EXPECT_EQ(commas.elementType, et::kF32);
  EXPECT_EQ(floats(commas), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(floats(parse("4xf32=1 2, 3  4")), floats(commas));
  HostTensor matrix = parse("2x2xf32=[1 2][3 4]");
  EXPECT_EQ(matrix.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(floats(matrix), (std::vector<float>{1, 2, 3, 4}));
  HostTensor splat = parse("4096xf32=-2.0");
  ASSERT_EQ(splat.elementCount(), 4096u);
  for (float v : floats(splat))
    ASSERT_EQ(v, -2.0f);
  HostTensor scalar = parse("f32=0.5");
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(floats(scalar), (std::vector<float>{0.5f}));
  HostTensor zeros = parse("3xi32");
  EXPECT_EQ(zeros.bytes, std::vector<uint8_t>(12, 0));
  HostTensor empty = parse("0x4xf32=");
  EXPECT_EQ(empty.elementCount(), 0u);
}

TEST(TensorTextTest, ElementTypes) {
  struct Case {
    const char *text;
    hal::ElementType type;
    size_t bytes;
  } cases[] = {
      {"2xi8=-128,255", et::kI8, 2},
      {"2xsi16=-5,5", et::make(et::kKindSignedInt, 16), 4},
      {"2xui32=0,4294967295", et::make(et::kKindUnsignedInt, 32), 8},
      {"2xi64=-1,9223372036854775807", et::kI64, 16},
      {"2xi1=true,0", et::kI1, 2},
      {"2xf16=1.5,-2", et::kF16, 4},
      {"2xbf16=1.5,-2", et::kBF16, 4},
      {"2xf64=0.1,1e300", et::kF64, 16},
  };
  for (const Case &c : cases) {
    HostTensor tensor = parse(c.text);
    EXPECT_EQ(tensor.elementType, c.type) << c.text;
    EXPECT_EQ(tensor.bytes.size(), c.bytes) << c.text;
    EXPECT_EQ(tooling::formatTensor(tensor).substr(0, 2), "2x") << c.text;
  }
  EXPECT_EQ(tooling::formatTensor(parse("2xi8=-128,255")), "2xi8=-128 -1");
  EXPECT_EQ(tooling::formatTensor(parse("2xf16=1.5,-2")), "2xf16=1.5 -2");
  EXPECT_EQ(tooling::formatTensor(parse("2xbf16=1.5,-2")), "2xbf16=1.5 -2");
  EXPECT_EQ(tooling::formatTensor(parse("2xui32=0,4294967295")),
            "2xui32=0 4294967295");
  EXPECT_EQ(tooling::formatTensor(parse("2xi1=true,0")), "2xi1=1 0");
}

TEST(TensorTextTest, Malformed) {
  EXPECT_NE(parseError("").find("empty value"), std::string::npos);
  EXPECT_NE(parseError("4xf32=1,2,x,4").find("'x' is not a number"),
            std::string::npos);
  EXPECT_NE(parseError("4xf32=1,2,3").find("3 values for 4 elements"),
            std::string::npos);
  EXPECT_NE(parseError("4xq32=1").find("unknown element type 'q32'"),
            std::string::npos);
  EXPECT_NE(parseError("4xf8=1").find("unknown element type 'f8'"),
            std::string::npos);
  EXPECT_NE(parseError("-4xf32=1").find("dimension '-4'"), std::string::npos);
  EXPECT_NE(parseError("axf32=1").find("dimension 'a'"), std::string::npos);
  EXPECT_NE(parseError("4xf32=").find("no values after '='"),
            std::string::npos);
  EXPECT_NE(parseError("2xi8=1,300").find("'300' is out of range"),
            std::string::npos);
  EXPECT_NE(parseError("2xui8=1,-1").find("'-1' is negative"),
            std::string::npos);
  EXPECT_NE(parseError("2xsi8=1,200").find("out of range"), std::string::npos);
  EXPECT_NE(parseError("2xi1=1,2").find("is not a boolean"), std::string::npos);
  EXPECT_NE(parseError("99999999999x99999999999xf32=1").find("too large"),
            std::string::npos);
  EXPECT_NE(parseError("@/nonexistent/x.npy").find("cannot open"),
            std::string::npos);
}

TEST(TensorTextTest, FormatsLikeIreeRunModule) {
  EXPECT_EQ(tooling::formatTensor(parse("4xf32=1,2,3,4")), "4xf32=1 2 3 4");
  EXPECT_EQ(tooling::formatTensor(parse("2x2xf32=1,2,3,4")),
            "2x2xf32=[1 2][3 4]");
  EXPECT_EQ(tooling::formatTensor(parse("2x2x2xi32=1,2,3,4,5,6,7,8")),
            "2x2x2xi32=[[1 2][3 4]][[5 6][7 8]]");
  EXPECT_EQ(tooling::formatTensor(parse("f32=0.25")), "f32=0.25");
  EXPECT_EQ(tooling::formatTensor(parse("3xf32=1e20,0.1,-7")),
            "3xf32=1E+20 0.1 -7");
  EXPECT_EQ(tooling::formatTensor(parse("6xi32=1"), 4), "6xi32=1 1 1 1...");
}

TEST(TensorCompareTest, TolerancesAndMismatches) {
  HostTensor a = parse("3xf32=1,2,3");
  EXPECT_FALSE(tooling::compareTensors(a, parse("3xf32=1,2,3.00001"), 1e-4));
  auto strict = tooling::compareTensors(a, parse("3xf32=1,2,3.00001"), 0);
  ASSERT_TRUE(strict);
  EXPECT_NE(strict->find("element [2] is 3 but 3.00001001 was expected"),
            std::string::npos);
  auto shape = tooling::compareTensors(a, parse("1x3xf32=1,2,3"), 1);
  ASSERT_TRUE(shape);
  EXPECT_EQ(*shape, "the result is 3xf32 but 1x3xf32 was expected");
  auto type = tooling::compareTensors(a, parse("3xi32=1,2,3"), 1);
  ASSERT_TRUE(type);
  EXPECT_FALSE(tooling::compareTensors(parse("2xf32=nan,1"),
                                       parse("2xf32=nan,1"), 0));
  auto ints = tooling::compareTensors(parse("2x2xi32=1,2,3,4"),
                                      parse("2x2xi32=1,2,3,5"), 10);
  ASSERT_TRUE(ints);
  EXPECT_NE(ints->find("element [1, 1] is 4 but 5 was expected"),
            std::string::npos);
}

TEST(NpyTest, RoundTripsEveryDtype) {
  const char *texts[] = {"2x3xf32=1,2,3,4,5,6", "4xf64=0.5", "2xf16=1,2",
                         "3xi8=-1,0,1",         "2xi16=-300,300",
                         "2xi32=7,8",           "2xi64=-9,9",
                         "2xui8=1,255",         "2xui64=1,2",
                         "2xi1=1,0",            "f32=3"};
  std::string path = tempPath("roundtrip.npy");
  bool append = false;
  std::vector<HostTensor> written;
  for (const char *text : texts) {
    HostTensor tensor = parse(text);
    ASSERT_TRUE(tooling::writeNpyFile(path, tensor, append).ok()) << text;
    append = true;
    written.push_back(tensor);
  }
  auto arrays = tooling::readNpyFile(path);
  ASSERT_TRUE(arrays.ok()) << arrays.status().toString();
  ASSERT_EQ(arrays->size(), written.size());
  for (size_t i = 0; i < written.size(); ++i) {
    EXPECT_EQ((*arrays)[i].shape, written[i].shape) << texts[i];
    EXPECT_EQ((*arrays)[i].elementType, written[i].elementType) << texts[i];
    EXPECT_EQ((*arrays)[i].bytes, written[i].bytes) << texts[i];
  }
  std::remove(path.c_str());
}

TEST(NpyTest, HeaderLayout) {
  auto bytes = tooling::encodeNpy(parse("2x3xf32=0"));
  ASSERT_TRUE(bytes.ok());
  // magic, version 1.0, header padded so the data starts at 64 bytes.
  EXPECT_EQ(bytes->substr(0, 6), std::string("\x93NUMPY", 6));
  EXPECT_EQ((*bytes)[6], 1);
  size_t headerLength = uint8_t((*bytes)[8]) | (uint8_t((*bytes)[9]) << 8);
  EXPECT_EQ((10 + headerLength) % 64, 0u);
  std::string header = bytes->substr(10, headerLength);
  EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos);
  EXPECT_NE(header.find("'shape': (2, 3)"), std::string::npos);
  EXPECT_EQ(header.back(), '\n');
  auto vector = tooling::encodeNpy(parse("5xi8=0"));
  ASSERT_TRUE(vector.ok());
  EXPECT_NE(vector->find("'descr': '|i1'"), std::string::npos);
  EXPECT_NE(vector->find("'shape': (5,)"), std::string::npos);
  // bf16 is written the way ml_dtypes' bfloat16 arrays are: '|V2'; it
  // reads back as bf16.
  auto bf16 = tooling::encodeNpy(parse("2xbf16=1,-2"));
  ASSERT_TRUE(bf16.ok());
  EXPECT_NE(bf16->find("'descr': '|V2'"), std::string::npos);
  auto back = tooling::decodeNpy(*bf16, "bf16.npy");
  ASSERT_TRUE(back.ok()) << back.status().toString();
  EXPECT_EQ((*back)[0].elementType, hal::element_type::kBF16);
  EXPECT_EQ((*back)[0].bytes, parse("2xbf16=1,-2").bytes);
  // Types without a numpy dtype are refused.
  hal::ElementType f8 = hal::element_type::make(0x21, 8);
  EXPECT_FALSE(tooling::hasNpyDtype(f8));
}

TEST(NpyTest, BigEndianAndRejections) {
  auto bytes = tooling::encodeNpy(parse("2xi32=1,2"));
  ASSERT_TRUE(bytes.ok());
  std::string big = *bytes;
  big.replace(big.find("<i4"), 3, ">i4");
  // Reverse each element's bytes, as a big-endian writer would.
  size_t data = big.size() - 8;
  std::reverse(big.begin() + data, big.begin() + data + 4);
  std::reverse(big.begin() + data + 4, big.end());
  auto arrays = tooling::decodeNpy(big, "big.npy");
  ASSERT_TRUE(arrays.ok()) << arrays.status().toString();
  EXPECT_EQ((*arrays)[0].bytes, parse("2xi32=1,2").bytes);

  std::string fortran = *bytes;
  fortran.replace(fortran.find("False"), 5, "True ");
  auto rejected = tooling::decodeNpy(fortran, "f.npy");
  ASSERT_FALSE(rejected.ok());
  EXPECT_NE(rejected.status().message().find("Fortran-ordered"),
            std::string::npos);
  auto junk = tooling::decodeNpy("hello", "junk.npy");
  ASSERT_FALSE(junk.ok());
  EXPECT_NE(junk.status().message().find("magic"), std::string::npos);
  auto cut = tooling::decodeNpy(bytes->substr(0, bytes->size() - 1), "cut");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("truncated data"), std::string::npos);
}

TEST(BufferViewBridgeTest, UploadAndDownload) {
  auto device = hal::createDevice("local-sync");
  ASSERT_TRUE(device.ok());
  HostTensor tensor = parse("2x2xf32=[1 2][3 4]");
  auto view = tooling::uploadTensor(**device, tensor);
  ASSERT_TRUE(view.ok()) << view.status().toString();
  EXPECT_EQ((*view)->typeString(), "2x2xf32");
  EXPECT_TRUE(hal::anyBitSet((*view)->buffer().allowedUsage(),
                             hal::BufferUsage::SharingExport));
  auto back = tooling::downloadTensor(**view, hal::Timeout::milliseconds(5000));
  ASSERT_TRUE(back.ok()) << back.status().toString();
  EXPECT_EQ(back->bytes, tensor.bytes);

  // A device-local buffer that cannot be mapped is staged by a queue copy.
  auto discrete = hal::createDevice("local-task?discrete=true");
  ASSERT_TRUE(discrete.ok());
  auto buffer = (*discrete)->allocator().allocate(
      hal::MemoryType::DeviceLocal, hal::BufferUsage::Transfer, 16);
  ASSERT_TRUE(buffer.ok());
  auto hidden = hal::BufferView::create(*buffer, 0, 16, {4}, et::kF32);
  ASSERT_TRUE(hidden.ok());
  auto zeros = tooling::downloadTensor(**hidden, hal::Timeout::milliseconds(5000));
  ASSERT_TRUE(zeros.ok()) << zeros.status().toString();
  EXPECT_EQ(zeros->bytes, std::vector<uint8_t>(16, 0));
  EXPECT_EQ((*discrete)->statistics().queueOpsExecuted, 1u);
}

} // namespace
