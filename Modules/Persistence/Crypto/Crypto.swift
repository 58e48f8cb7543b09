#if canImport(CCrypto)
import CCrypto
#elseif canImport(CommonCrypto)
import CommonCrypto
import Security
#endif

/// The cryptographic primitives accounts need: libcrypto on Linux, CommonCrypto on Apple.
enum Crypto {
    static func failure(_ what: String) -> DatabaseError {
        DatabaseError(.other, operation: what, message: "the system's crypto library failed")
    }

    #if canImport(CCrypto)
    /// libcrypto, set up not to tear itself down at exit: another thread may still be hashing.
    private static let library: Bool = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1
    #endif

    /// `count` bytes from the system's cryptographically secure generator.
    static func randomBytes(_ count: Int) throws(DatabaseError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        #if canImport(CCrypto)
        guard library else { throw failure("start the system's crypto library") }
        // The C boundary: RAND_bytes writes `count` bytes into a buffer of `count`.
        let ok = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) == 1 }
        #else
        // The C boundary: SecRandomCopyBytes writes `count` bytes into a buffer of `count`.
        let ok = bytes.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return count == 0 }
            return SecRandomCopyBytes(kSecRandomDefault, count, base) == errSecSuccess
        }
        #endif
        guard ok else { throw failure("generate random bytes") }
        return bytes
    }

    /// PBKDF2-HMAC-SHA256 of `password` with `salt`, `iterations` rounds, 32 bytes long.
    static func pbkdf2(password: String, salt: [UInt8], iterations: Int) throws(DatabaseError) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: 32)
        let passwordBytes = Array(password.utf8)
        #if canImport(CCrypto)
        guard library else { throw failure("start the system's crypto library") }
        // The C boundary: each buffer is passed with its own count, and the key's is 32.
        let ok = passwordBytes.withUnsafeBufferPointer { pass in
            salt.withUnsafeBufferPointer { saltBuffer in
                key.withUnsafeMutableBufferPointer { out in
                    pass.withMemoryRebound(to: CChar.self) { passChars in
                        PKCS5_PBKDF2_HMAC(
                            passChars.baseAddress, Int32(pass.count), saltBuffer.baseAddress, Int32(salt.count),
                            Int32(iterations), EVP_sha256(), Int32(out.count), out.baseAddress) == 1
                    }
                }
            }
        }
        #else
        // The C boundary: each buffer is passed with its own count, and the key's is 32.
        let ok = passwordBytes.withUnsafeBufferPointer { pass in
            pass.withMemoryRebound(to: CChar.self) { passChars in
                CCKeyDerivationPBKDF(
                    CCPBKDFAlgorithm(kCCPBKDF2), passChars.baseAddress, pass.count, salt, salt.count,
                    CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA256), UInt32(iterations), &key, key.count) == kCCSuccess
            }
        }
        #endif
        guard ok else { throw failure("derive a password hash") }
        return key
    }

    static func sha256(_ bytes: [UInt8]) throws(DatabaseError) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        #if canImport(CCrypto)
        guard library else { throw failure("start the system's crypto library") }
        var length: UInt32 = 0
        // The C boundary: the input is passed with its count, and the digest holds SHA-256's 32 bytes.
        let ok = bytes.withUnsafeBufferPointer { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil) == 1
        }
        #else
        // The C boundary: the input is passed with its count, and the digest holds SHA-256's 32 bytes.
        bytes.withUnsafeBufferPointer { input in _ = CC_SHA256(input.baseAddress, CC_LONG(input.count), &digest) }
        let ok = true
        #endif
        guard ok else { throw failure("hash a token") }
        return digest
    }

    /// Whether `a` and `b` are equal, in time that depends only on their length.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
