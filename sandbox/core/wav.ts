/** A valid PCM WAV file (RIFF header + 16-bit mono samples of a tone), so clients can check real audio. */
export function makeWav(seconds: number, frequency = 440, sampleRate = 8000): Buffer {
	const samples = Math.max(1, Math.round(seconds * sampleRate));
	const dataBytes = samples * 2;
	const buffer = Buffer.alloc(44 + dataBytes);
	buffer.write('RIFF', 0, 'ascii');
	buffer.writeUInt32LE(36 + dataBytes, 4);
	buffer.write('WAVE', 8, 'ascii');
	buffer.write('fmt ', 12, 'ascii');
	buffer.writeUInt32LE(16, 16);
	buffer.writeUInt16LE(1, 20); // PCM
	buffer.writeUInt16LE(1, 22); // mono
	buffer.writeUInt32LE(sampleRate, 24);
	buffer.writeUInt32LE(sampleRate * 2, 28);
	buffer.writeUInt16LE(2, 32);
	buffer.writeUInt16LE(16, 34);
	buffer.write('data', 36, 'ascii');
	buffer.writeUInt32LE(dataBytes, 40);
	for (let i = 0; i < samples; i++) {
		buffer.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * frequency * i) / sampleRate)), 44 + i * 2);
	}
	return buffer;
}
