import { InvalidInputError } from '../../shared/errors';
import { attributeDatatypes } from '../../shared/contracts/attributes';
import { assertEnumHasValues } from '../../shared/domain/attributes';

describe('assertEnumHasValues', () => {
  it.each([undefined, '', '   '])('refuses an enum attribute whose values are %p', (values) => {
    expect(() => assertEnumHasValues({ datatype: 'enum', enum: values })).toThrow(InvalidInputError);
  });

  it('names the enum field in its message', () => {
    expect(() => assertEnumHasValues({ datatype: 'enum' })).toThrow(/^Request body: \[enum\]/);
  });

  it('accepts an enum attribute with values', () => {
    expect(() => assertEnumHasValues({ datatype: 'enum', enum: 'red, green' })).not.toThrow();
  });

  it.each(attributeDatatypes.filter((datatype) => datatype !== 'enum'))('asks no values of a %s attribute', (datatype) => {
    expect(() => assertEnumHasValues({ datatype })).not.toThrow();
  });
});
