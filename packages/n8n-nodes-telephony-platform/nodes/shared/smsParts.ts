/**
 * How many parts an SMS is charged as, estimated by the usual rule (the contract states none): GSM 03.38
 * 160 then 153 per part (extension characters count two), else UCS-2 70 then 67 code units.
 */

const GSM_BASIC = new Set(
	'@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
const GSM_EXTENSION = new Set('^{}\\[~]|€\f');

export interface SmsParts {
	encoding: 'GSM-7' | 'UCS-2';
	/** Septets (GSM-7, extension characters counting two) or UTF-16 code units (UCS-2). */
	units: number;
	parts: number;
}

export function smsParts(text: string): SmsParts {
	let septets = 0;
	for (const char of text) {
		if (GSM_BASIC.has(char)) septets += 1;
		else if (GSM_EXTENSION.has(char)) septets += 2;
		else return parts('UCS-2', text.length, 70, 67);
	}
	return parts('GSM-7', septets, 160, 153);
}

function parts(
	encoding: SmsParts['encoding'],
	units: number,
	single: number,
	each: number,
): SmsParts {
	return { encoding, units, parts: units <= single ? 1 : Math.ceil(units / each) };
}

export const SMS_PARTS_RULE =
	'at most Maximum Parts parts, estimated: GSM-7 texts 160 characters in one part and 153 per part beyond (^{}\\[~]|€ count two); any other character makes the text UCS-2, 70 and 67';
