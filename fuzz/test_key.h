// A fixed Ed25519 key pair for fuzzing only: seeds are signed with the private
// key (fuzz/seed_gen.cc) so that the verify target, which checks signatures
// against the public key, reaches the code after a valid signature. It is
// public, hence worthless as a key: never trust anything signed with it.
#ifndef MLFKIT_FUZZ_TEST_KEY_H_
#define MLFKIT_FUZZ_TEST_KEY_H_

namespace mlf::fuzz {

inline constexpr char kTestPrivateKeyPem[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MC4CAQAwBQYDK2VwBCIEICFNo12DbwWXWwjdAc7YVSyBiQNrkcnHDbnYbLNdG/eR\n"
    "-----END PRIVATE KEY-----\n";

inline constexpr char kTestPublicKeyPem[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MCowBQYDK2VwAyEA51pqZkL9n1bUpc/KTPwoanT1m6oAseXYcacAPx1xE04=\n"
    "-----END PUBLIC KEY-----\n";

}  // namespace mlf::fuzz

#endif  // MLFKIT_FUZZ_TEST_KEY_H_
